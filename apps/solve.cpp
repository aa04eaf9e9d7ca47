// `distspmv solve` (solve.hpp): load A distributed, build b, run CG or GMRES, write x and the
// report. Every step that can fail on some ranks only (reading b, writing x, the JSON on rank 0) goes
// through dist::collective_try, so a failure is the same error on every rank, never a hang.
#include "apps/solve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apps/vector_files.hpp"
#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/distributed_matrix.hpp"
#include "dist/diagnostics.hpp"
#include "dist/setup/mpi_util.hpp"
#include "dist/solvers/cg.hpp"
#include "dist/solvers/gmres.hpp"
#include "dist/solvers/vector_ops.hpp"
#include "distspmv/config.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/device_timing.hpp"

namespace distspmv::app {

namespace {

using matrix = distributed_matrix<double>;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---- Matrix Market dense vectors -------------------------------------------------------------

/// std::getline with the Matrix Market reader's bound: a comment line ('%' first) longer than
/// 1 MiB comes back as "%", its rest skipped unstored; any other line past 1 MiB is bad input
/// naming it.
class bounded_lines {
 public:
  bounded_lines(std::istream& in, const std::string& path)
      : in_(in), path_(path), buf_(static_cast<std::size_t>(max_line) + 1, '\0') {}

  /// The next line, number `line_no`, into `line`; false at the end of the file.
  bool next(std::string& line, long long line_no) {
    in_.getline(buf_.data(), max_line + 1);
    const std::streamsize got = in_.gcount();
    if (got == 0 && in_.eof()) return false;
    if (in_.fail() && !in_.eof()) {  // max_line bytes and no '\n' yet
      if (buf_[0] != '%')
        DSPMV_BAD_INPUT(path_, "line " + std::to_string(line_no),
                        "line is longer than this reader's limit of " + std::to_string(max_line) + " bytes");
      in_.clear();
      in_.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
      line = "%";
      return true;
    }
    line.assign(buf_.data(), static_cast<std::size_t>(got) - (in_.eof() ? 0 : 1));  // got counts the '\n'
    return true;
  }

 private:
  static constexpr std::streamsize max_line = std::streamsize{1} << 20;
  std::istream& in_;
  const std::string& path_;
  std::string buf_;
};

/// A Matrix Market `array` file of `rows` x 1 real or integer values, whole (every rank parses
/// the file, as for Matrix Market matrices, which have no index to seek by).
std::vector<double> read_mtx_vector(const std::string& path, global_index_type rows) {
  std::ifstream in(path);
  if (!in) DSPMV_BAD_INPUT(path, "", "no such file or not readable");
  bounded_lines lines(in, path);
  std::string line;
  lines.next(line, 1);
  std::string banner, object, layout, field, symmetry;
  std::istringstream(line) >> banner >> object >> layout >> field >> symmetry;
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  if (banner != "%%MatrixMarket" || lower(object) != "matrix" || lower(layout) != "array" ||
      (lower(field) != "real" && lower(field) != "integer") || lower(symmetry) != "general")
    DSPMV_BAD_INPUT(path, "line 1",
                    "expected '%%MatrixMarket matrix array real general' (a dense vector; gzip is not supported)");
  long long line_no = 1, m = -1, n = -1;
  while (lines.next(line, line_no + 1)) {
    ++line_no;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream(line) >> m >> n;
    break;
  }
  if (n != 1 || m != rows)
    DSPMV_BAD_INPUT(path, "line " + std::to_string(line_no),
                    fmt::format("size {} x {}, expected {} x 1 (the matrix has {} rows)", m, n, rows, rows));
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(rows));
  while (static_cast<global_index_type>(v.size()) < rows && lines.next(line, line_no + 1)) {
    ++line_no;
    if (line.empty() || line[0] == '%') continue;
    char* end = nullptr;
    const double value = std::strtod(line.c_str(), &end);
    if (end == line.c_str()) DSPMV_BAD_INPUT(path, "line " + std::to_string(line_no), "not a number: '" + line + "'");
    v.push_back(value);
  }
  if (static_cast<global_index_type>(v.size()) != rows)
    DSPMV_BAD_INPUT(path, "", fmt::format("{} values, expected {}", v.size(), rows));
  return v;
}

io::vector_read_options rhs_read_options(const solve_options& o) {
  io::vector_read_options r;
  r.default_dataset = "b";
  r.allow_nonfinite = o.allow_nonfinite;
  return r;
}

io::vector_write_options solution_write_options() {
  io::vector_write_options w;
  w.default_dataset = "x";
  return w;
}

// ---- setup -----------------------------------------------------------------------------------

matrix_options matrix_options_of(const solve_options& o, backend where) {
  matrix_options m;
  m.format = o.format;
  m.partition = parse_partitioner(o.partition);
  m.order = parse_row_order(o.order);
  m.where = where;
  m.transport = parse_transport(o.transport);
  m.generator_seed = o.seed;
  m.allow_nonfinite = o.allow_nonfinite;
  m.keep_for_update = false;  // a solve never updates values
  m.cuda_graphs = o.cuda_graphs == "on";
  return m;
}

/// b in the partitioned layout and the matrix's memory space: from --rhs, or A * 1.
solvers::backend_array make_rhs(matrix& A, const solve_options& o) {
  solvers::backend_array b(A.where(), A.local_rows());
  if (o.rhs.empty()) {
    solvers::backend_array ones(A.where(), A.local_rows());
    const std::vector<double> h(A.local_rows(), 1.0);
    ones.copy_from_host(h.data());
    A.apply(1.0, ones.data(), 0.0, b.data());
    if (A.where() == backend::cuda) device_synchronize();  // `ones` is freed on return
    return b;
  }
  std::vector<double> slice;
  if (ends_with(o.rhs, ".mtx")) {
    dist::collective_try(A.comm(), [&] {
      const auto whole = read_mtx_vector(o.rhs, A.global_rows());
      slice.assign(whole.begin() + A.caller_first_row(), whole.begin() + A.caller_first_row() + A.caller_rows());
      if (!o.allow_nonfinite)
        for (std::size_t i = 0; i < slice.size(); ++i)
          if (!std::isfinite(slice[i]))
            DSPMV_BAD_INPUT(o.rhs, fmt::format("entry {}", A.caller_first_row() + static_cast<global_index_type>(i)),
                            "NaN or Inf (pass --allow-nonfinite to accept it)");
    });
  } else {
    // Each rank reads its own entries (io/vector_io.hpp); HDF5 without a name: dataset b.
    slice = read_vector_slice(A.comm(), o.rhs, A.global_rows(), "rows", A.caller_first_row(), A.caller_rows(),
                              rhs_read_options(o));
  }
  std::vector<double> part(A.local_rows());
  A.to_partitioned(slice.data(), part.data());
  b.copy_from_host(part.data());
  return b;
}

/// Writes x (partitioned layout, backend memory) in the original row order, each rank its slice.
void write_solution(const matrix& A, const solvers::backend_array& x, const solve_options& o) {
  const auto part = x.to_host();
  std::vector<double> caller(A.caller_rows());
  A.from_partitioned(part.data(), caller.data());
  write_vector_slices(A.comm(), o.output, A.global_rows(), A.caller_first_row(), caller, solution_write_options());
}

/// Largest |x_i - 1| over all ranks (the error when b = A * 1).
double error_from_ones(const matrix& A, const solvers::backend_array& x) {
  double e = 0;
  for (double v : x.to_host()) e = std::max(e, std::abs(v - 1.0));
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_MAX, A.comm()));
  return e;
}

// ---- report ----------------------------------------------------------------------------------

struct run_facts {
  double setup_seconds = 0;
  double error_from_ones = std::numeric_limits<double>::quiet_NaN();  ///< only when b = A * 1
};

std::string method_label(const solve_options& o) {
  const std::string m = o.method == "gmres" ? fmt::format("gmres({})", o.restart) : "cg";
  return m + (o.no_jacobi ? ", no preconditioner" : o.method == "gmres" ? ", Jacobi (right)" : ", Jacobi");
}

void print_report(const matrix& A, const solve_options& o, const solvers::solve_result& r, const run_facts& f) {
  fmt::print("distspmv solve {} ({})\n", DISTSPMV_VERSION, DISTSPMV_GIT_REVISION);
  fmt::print("matrix {}: {} rows, {} nonzeros; {} ranks, backend {}, transport {} ({}), partition {}, format {} "
             "(rank 0); setup {:.3f} s\n",
             o.source, A.global_rows(), A.global_nnz(), A.ranks(), to_string(A.where()), to_string(A.transport()),
             A.transport_reason(), A.partition_quality().method, A.summary().format, f.setup_seconds);
  if (A.where() == backend::cuda) fmt::print("apply as a CUDA graph: {} (rank 0)\n", A.cuda_graphs());
  fmt::print("method {}, rtol {:.1e}, at most {} iterations; b = {}\n", method_label(o), o.rtol, o.max_iters,
             o.rhs.empty() ? "A * 1" : o.rhs);
  const auto& h = r.residual_history;
  if (o.history_every > 0 && !h.empty()) {
    fmt::print("{:>8}  {:>12}\n", "iter", "||r||/||b||");
    for (std::size_t i = 0; i < h.size(); ++i)
      if (i % o.history_every == 0 || i + 1 == h.size()) fmt::print("{:>8}  {:>12.3e}\n", i, h[i]);
  }
  fmt::print("{} after {} iterations: ||b - A x|| / ||b|| = {:.3e}\n", r.converged ? "converged" : "NOT converged",
             r.iterations, r.final_relative_residual);
  if (!std::isnan(f.error_from_ones)) fmt::print("max |x - 1| = {:.3e}\n", f.error_from_ones);
  fmt::print("time {:.4f} s: setup {:.4f} s (Jacobi diagonal, vectors), then {:.1f} us per iteration; SpMV {:.1f}% "
             "of the iterations ({} calls, {:.4f} s)\n",
             r.total_seconds, r.setup_seconds, 1e6 * r.seconds_per_iteration(), 100 * r.spmv_fraction(), r.spmv_calls,
             r.spmv_seconds);
  std::fflush(stdout);
}

nlohmann::json json_report(const matrix& A, const solve_options& o, const solvers::solve_result& r,
                           const run_facts& f) {
  nlohmann::json j;
  j["command"] = "solve";
  j["version"] = DISTSPMV_VERSION;
  j["git_revision"] = DISTSPMV_GIT_REVISION;
  j["matrix"] = o.source;
  j["seed"] = o.seed;  // the generator's (what recomputes the matrix) and the random vectors'
  j["rows"] = A.global_rows();
  j["nnz"] = A.global_nnz();
  j["ranks"] = A.ranks();
  j["backend"] = to_string(A.where());
  if (A.where() == backend::cuda) j["gpu"] = device_name();
  j["transport"] = to_string(A.transport());
  j["transport_reason"] = A.transport_reason();
  j["cuda_graphs"] = A.cuda_graphs();
  j["partition"] = A.partition_quality().method;
  j["partition_reason"] = A.partition_quality().reason;
  j["order"] = A.partition_quality().order;
  j["order_reason"] = A.partition_quality().order_reason;
  j["format"] = A.summary().format;  // rank 0's
  j["method"] = o.method;
  if (o.method == "gmres") j["restart"] = o.restart;
  j["jacobi"] = !o.no_jacobi;
  j["rtol"] = o.rtol;
  j["max_iters"] = o.max_iters;
  j["rhs"] = o.rhs.empty() ? "A*1" : o.rhs;
  j["iterations"] = r.iterations;
  j["converged"] = r.converged;
  j["final_relative_residual"] = r.final_relative_residual;
  if (!std::isnan(f.error_from_ones)) j["max_error_vs_ones"] = f.error_from_ones;
  j["setup_seconds"] = f.setup_seconds;
  j["total_seconds"] = r.total_seconds;
  j["solver_setup_seconds"] = r.setup_seconds;
  j["time_per_iteration_us"] = 1e6 * r.seconds_per_iteration();
  j["spmv_seconds"] = r.spmv_seconds;
  j["spmv_calls"] = r.spmv_calls;
  j["spmv_fraction"] = r.spmv_fraction();
  j["residual_history"] = r.residual_history;
  if (!o.output.empty()) j["output"] = o.output;
  return j;
}

void write_json(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  if (!out) DSPMV_BAD_INPUT(path, "", "cannot write the JSON report");
  out << j.dump(2) << "\n";
  if (!out) DSPMV_BAD_INPUT(path, "", "writing the JSON report failed");
}

void check_options(const solve_options& o) {
  if (o.method != "cg" && o.method != "gmres") DSPMV_BAD_INPUT("--method", o.method, "expected cg or gmres");
  if (!(o.rtol > 0)) DSPMV_BAD_INPUT("--rtol", std::to_string(o.rtol), "must be positive");
  if (o.max_iters < 0) DSPMV_BAD_INPUT("--max-iters", std::to_string(o.max_iters), "must be >= 0");
  if (o.restart < 1) DSPMV_BAD_INPUT("--restart", std::to_string(o.restart), "must be >= 1");
  if (!o.output.empty()) io::plan_vector_output(o.output, 0, solution_write_options());  // a known format
}

}  // namespace

int run_solve(const solve_options& o) {
  const MPI_Comm world = MPI_COMM_WORLD;
  dist::collective_try(world, [&] { check_options(o); });
  const backend where = dist::select_backend(o.backend, world);  // one GPU per rank on cuda
  const double t0 = MPI_Wtime();
  auto A = matrix::from_source(world, o.source, matrix_options_of(o, where));
  run_facts facts;
  facts.setup_seconds = MPI_Wtime() - t0;

  const solvers::backend_array b = make_rhs(A, o);
  solvers::backend_array x(A.where(), A.local_rows());  // x0 = 0
  solvers::solver_options so;
  so.rtol = o.rtol;
  so.max_iters = o.max_iters;
  so.restart = o.restart;
  so.jacobi = !o.no_jacobi;
  so.timing = true;  // the report gives the SpMV share
  const auto result = o.method == "cg" ? solvers::cg(A, b.data(), x.data(), so)
                                       : solvers::gmres(A, b.data(), x.data(), so);
  if (o.rhs.empty()) facts.error_from_ones = error_from_ones(A, x);

  if (!o.output.empty()) write_solution(A, x, o);
  if (A.rank() == 0) print_report(A, o, result, facts);
  if (!o.json.empty()) {
    dist::collective_try(world, [&] {
      if (A.rank() == 0) write_json(o.json, json_report(A, o, result, facts));
    });
  }
  return result.converged ? 0 : 2;
}

}  // namespace distspmv::app
