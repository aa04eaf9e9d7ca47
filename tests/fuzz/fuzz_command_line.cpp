// libFuzzer target for the command line of the distspmv program: option parsing (CLI11, set up
// by app::define_cli exactly as main() sets it up), generator specs and source name resolution.
//
// The fuzz bytes, split at NUL bytes, are argv[1..] (at most 24 arguments). Nothing is run: the
// parse fills app::cli_options, then every matrix source it names is resolved as the program
// would resolve it, without its cost:
//   * gen:... specs: describe_generator (the parse and its checks); specs of at most 512 rows
//     and 2^14 expected nonzeros are generated whole (R-MAT and lognormal only then, since their
//     rows may be long or need every edge), the stencils' last rows also at any size; what is
//     generated is a valid CSR of the announced shape, and any row range equals that slice of
//     the whole (generate_rows against generate);
//   * other names: detect_format and describe_source, then read_matrix, but only names without
//     a '/', taken as names in a private directory (made at start-up, removed at exit) holding a
//     few tiny files of every format, a folder and a file of unknown format, so that the fuzzer
//     never opens /dev/stdin, a FIFO or /proc.
// The contract under test: CLI11 throws only CLI::ParseError (whose message and exit code are
// formatted, as main() does); the io layer throws only distspmv::bad_input; no crash, no
// sanitizer report, no hang, no huge allocation.
//
// Build: see tests/fuzz/CMakeLists.txt. Run:
//   fuzz_command_line -dict=tests/fuzz/command_line.dict WORK_DIR tests/fuzz/corpus_command_line
#include <CLI/CLI.hpp>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "apps/cli.hpp"
#include "common/csr_matrix.hpp"
#include "common/errors.hpp"
#include "io/generators.hpp"
#include "io/matrix_source.hpp"

namespace {

using distspmv::bad_input;
using distspmv::csr_matrix;
using distspmv::global_index_type;
namespace io = distspmv::io;
namespace app = distspmv::app;

constexpr std::size_t max_arguments = 24;
constexpr global_index_type max_generated_rows = 512;
constexpr distspmv::offset_type max_generated_nnz = distspmv::offset_type{1} << 14;

std::string sandbox;  // set once in LLVMFuzzerInitialize

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_command_line: %s\n", what.c_str());
  std::abort();
}

void check_csr(const csr_matrix<double>& a, const std::string& what) {
  try {
    distspmv::validate_csr(a, what);
  } catch (const bad_input& e) {
    bug(what + " is not a valid CSR: " + e.what());
  }
}

/// Parses, and for a small enough spec generates, a generator spec.
void resolve_generator(const std::string& spec, std::uint64_t seed) {
  io::generator_info info;
  try {
    info = io::describe_generator(spec);
  } catch (const bad_input&) {
    return;
  }
  if (info.rows <= 0 || info.cols <= 0 || info.nnz_estimate < 0) bug("describe_generator gave a bad shape: " + spec);
  const bool stencil = spec.rfind("gen:poisson3d:", 0) == 0 || spec.rfind("gen:stencil27:", 0) == 0;
  // R-MAT keeps every edge until duplicates are summed: its memory follows EF * 2^SCALE, not the
  // nonzeros (gen:rmat:6:547758077, a 64 x 64 matrix, asks for 3.5e10 edges).
  if (spec.rfind("gen:rmat:", 0) == 0) {
    const auto colon = spec.find(':', 9);
    const long long scale = std::stoll(spec.substr(9, colon - 9)), edge_factor = std::stoll(spec.substr(colon + 1));
    if (edge_factor > (max_generated_nnz >> scale)) return;
  }
  if (info.rows <= max_generated_rows && info.nnz_estimate <= max_generated_nnz) {
    const csr_matrix<double> a = io::generate(spec, seed);
    check_csr(a, spec);
    if (a.rows != info.rows || a.cols != info.cols) bug("generate's shape differs from describe_generator's: " + spec);
    if (stencil && a.nnz() != info.nnz_estimate) bug("a stencil's nonzeros differ from describe_generator's: " + spec);
    const global_index_type begin = static_cast<global_index_type>(seed % static_cast<std::uint64_t>(a.rows + 1));
    const global_index_type end = begin + static_cast<global_index_type>((seed >> 20) % (a.rows - begin + 1));
    if (!(io::generate_rows(spec, {begin, end}, seed) == distspmv::slice_rows(a, {begin, end})))
      bug("generate_rows differs from the slice of generate: " + spec);
  } else if (stencil) {
    const global_index_type begin = info.rows - std::min<global_index_type>(info.rows, 8);
    const csr_matrix<double> part = io::generate_rows(spec, {begin, info.rows}, seed);
    check_csr(part, spec + " (last rows)");
    if (part.rows != info.rows - begin) bug("generate_rows gave another number of rows: " + spec);
  }
}

/// Resolves a source name as the program would (see the top for which names are opened).
void resolve_source(const std::string& source, std::uint64_t seed) {
  if (source.empty()) return;
  if (io::is_generator(source)) {
    resolve_generator(source, seed);
    return;
  }
  if (source.find('/') != std::string::npos) return;
  const std::string path = sandbox + "/" + source;
  try {
    io::detect_format(path);
    io::source_options options;
    options.seed = seed;
    const io::source_info info = io::describe_source(path, options);
    const csr_matrix<double> a = io::read_matrix(path, options);
    check_csr(a, path);
    if (a.rows != info.rows || a.cols != info.cols) bug("read_matrix's shape differs from describe_source's: " + path);
  } catch (const bad_input&) {
  }
}

/// A private directory with one tiny file per format; the fuzzer's names resolve in it.
void make_sandbox() {
  char pattern[] = "/tmp/fuzz_command_line.XXXXXX";
  if (mkdtemp(pattern) == nullptr) bug("cannot make the sandbox directory");
  sandbox = pattern;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(sandbox, ec);
  });
  csr_matrix<double> a;
  a.rows = 2;
  a.cols = 3;
  a.row_ptr = {0, 2, 3};
  a.col_idx = {0, 2, 1};
  a.values = {1.5, -2, 4};
  const auto at = [](const char* name) { return sandbox + "/" + name; };
  for (const char* name : {"a.mtx", "b.mtx.gz", "c.h5", "d.dat", "e.petsc"}) io::write_matrix(at(name), a);
  std::filesystem::copy_file(at("c.h5"), at("I.H5"));
  std::filesystem::copy_file(at("c.h5"), at("j.data"));
  std::filesystem::copy_file(at("a.mtx"), at("f.mat"));    // not MATLAB v7.3: refused
  std::filesystem::copy_file(at("b.mtx.gz"), at("k.gz"));  // told by its bytes
  std::filesystem::create_directory(at("g"));
  std::FILE* f = std::fopen(at("h.bin").c_str(), "wb");
  if (f == nullptr || std::fputs("no known format\n", f) < 0 || std::fclose(f) != 0) bug("cannot write h.bin");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_sandbox();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments{"distspmv"};
  std::string current;
  for (std::size_t i = 0; i < size && arguments.size() <= max_arguments; ++i) {
    if (data[i] == 0) {
      arguments.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (arguments.size() <= max_arguments) arguments.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : arguments) argv.push_back(a.c_str());

  CLI::App cli;
  app::cli_options options;
  const app::cli_commands commands = app::define_cli(cli, options, "storage format (the fuzzer's short list)");
  try {
    cli.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    std::ostringstream sink;
    const int code = cli.exit(e, sink, sink);  // as main() reports it: --help, --version, errors
    if (code != 0 && sink.str().empty()) bug("a parse error without a message");
    return 0;
  }
  // CLI11's own checks held (IsMember, Range, ...).
  const app::run_options& run = options.run;
  if (run.iters < 0 || run.iters > 1000000 || run.warmup < -1 || run.warmup > 1000000) bug("--iters/--warmup range");
  if (app::is_format_list(run.format) && app::split_format_list(run.format).size() < 2) bug("format list split");

  if (*commands.convert) {
    resolve_source(options.convert.input, options.convert.seed);
  } else if (*commands.info) {
    resolve_source(options.info.source, options.info.seed);
  } else if (*commands.solve) {
    resolve_source(options.solve.source, options.solve.seed);
  } else {
    resolve_source(run.source, run.seed);
  }
  return 0;
}
