// libFuzzer target for the Matrix Market reader.
//
// Feeds arbitrary bytes to the exact code read_matrix_market() runs after loading a file
// (gzip detection and inflate included). The contract under test:
//   * the only exception that may escape is distspmv::bad_input (anything else is a bug:
//     libFuzzer reports the std::terminate as a crash);
//   * no crash, no sanitizer report, no hang;
//   * what is accepted is a valid CSR (validate_csr), and writing it and reading it back
//     gives the same matrix.
// Size lines asking for more than 2^16 rows are rejected before allocation (mm_parse_limits),
// so that the fuzzer explores parsing instead of the allocator's limits.
//
// Build: see tests/fuzz/CMakeLists.txt. Run:
//   fuzz_matrix_market -dict=tests/fuzz/matrix_market.dict WORK_DIR tests/fuzz/corpus tests/data
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/detail/matrix_market_parse.hpp"

namespace {

using distspmv::bad_input;
using distspmv::csr_matrix;
namespace detail = distspmv::io::detail;

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_matrix_market: %s\n", what.c_str());
  std::abort();
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void check_round_trip(const csr_matrix<double>& a) {
  std::string text;
  detail::format_matrix_market(a, false, [&](const char* p, std::size_t n) { text.append(p, n); });
  distspmv::io::mm_read_options options;
  options.allow_nonfinite = true;
  csr_matrix<double> b;
  try {
    b = detail::parse_matrix_market(text.data(), text.size(), "round-trip", options);
  } catch (const bad_input& e) {
    bug(std::string("the writer's output does not read back: ") + e.what());
  }
  if (a.rows != b.rows || a.cols != b.cols || a.row_ptr != b.row_ptr || a.col_idx != b.col_idx)
    bug("round trip changed the pattern");
  for (std::size_t k = 0; k < a.values.size(); ++k)
    if (!same_value(a.values[k], b.values[k]) || std::signbit(a.values[k]) != std::signbit(b.values[k]))
      bug("round trip changed value " + std::to_string(k));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The last byte's low bit picks the option, so both settings are explored.
  distspmv::io::mm_read_options options;
  options.allow_nonfinite = size > 0 && (data[size - 1] & 1) == 0;
  detail::mm_parse_limits limits;
  limits.max_rows = 1 << 16;

  csr_matrix<double> a;
  distspmv::io::mm_header header;
  try {
    a = detail::parse_matrix_market(reinterpret_cast<const char*>(data), size, "fuzz-input", options, &header, limits);
  } catch (const bad_input&) {
    return 0;  // a clean rejection
  }
  try {
    distspmv::validate_csr(a, "fuzz-input", options.allow_nonfinite);
  } catch (const bad_input& e) {
    bug(std::string("accepted an invalid matrix: ") + e.what());
  }
  if (a.rows != header.rows || a.cols != header.cols) bug("shape differs from the size line");
  const bool symmetric = header.symmetry != "general";
  if (a.nnz() > (symmetric ? 2 : 1) * header.entries) bug("more nonzeros than entries");
  check_round_trip(a);
  return 0;
}
