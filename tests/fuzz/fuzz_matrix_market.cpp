// libFuzzer target for the Matrix Market reader.
//
// Feeds arbitrary bytes to the parse read_matrix_market() runs on a file's bytes (gzip
// detection, inflate and the bounded line windows included). The contract under test:
//   * the only exception that may escape is distspmv::bad_input (anything else is a bug:
//     libFuzzer reports the std::terminate as a crash);
//   * no crash, no sanitizer report, no hang;
//   * what is accepted is a valid CSR (validate_csr), and writing it and reading it back
//     gives the same matrix;
//   * where the parse windows fall never shows: with lines bounded at 64 bytes, windows of 1 to
//     64 bytes (4 KiB and up for gzip) give what one large window gives, the same matrix or,
//     for plain text, the same message (for gzip, how far inflating got before a fault in the
//     stream depends on the windows).
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
#include <utility>

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

bool same_matrix(const csr_matrix<double>& a, const csr_matrix<double>& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.row_ptr != b.row_ptr || a.col_idx != b.col_idx) return false;
  for (std::size_t k = 0; k < a.values.size(); ++k)
    if (!same_value(a.values[k], b.values[k]) || std::signbit(a.values[k]) != std::signbit(b.values[k])) return false;
  return true;
}

/// "OK" (and the matrix) or the bad_input's message.
std::string outcome(const std::uint8_t* data, std::size_t size, const distspmv::io::mm_read_options& options,
                    const detail::mm_parse_limits& limits, csr_matrix<double>& a) {
  try {
    a = detail::parse_matrix_market(reinterpret_cast<const char*>(data), size, "fuzz-input", options, nullptr, limits);
    return "OK";
  } catch (const bad_input& e) {
    return e.what();
  }
}

void check_window_edges(const std::uint8_t* data, std::size_t size, const distspmv::io::mm_read_options& options) {
  detail::mm_parse_limits whole;
  whole.max_rows = 1 << 16;
  whole.max_line_bytes = 64;
  detail::mm_parse_limits small = whole;
  const bool gzip = detail::is_gzip(reinterpret_cast<const char*>(data), size);
  small.window_bytes = (gzip ? 4096 : 1) + (size > 0 ? data[size / 2] % 64 : 0);
  csr_matrix<double> a, b;
  const std::string in_one = outcome(data, size, options, whole, a);
  const std::string in_small = outcome(data, size, options, small, b);
  if ((in_one == "OK") != (in_small == "OK") || (!gzip && in_one != in_small))
    bug("windows of " + std::to_string(small.window_bytes) + " bytes change the outcome: '" + in_one + "' vs '" +
        in_small + "'");
  if (in_one == "OK" && !same_matrix(a, b))
    bug("windows of " + std::to_string(small.window_bytes) + " bytes change the matrix");
}

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
  if (!same_matrix(a, b)) bug("round trip changed the matrix");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The last byte's low bit picks the option, so both settings are explored.
  distspmv::io::mm_read_options options;
  options.allow_nonfinite = size > 0 && (data[size - 1] & 1) == 0;
  detail::mm_parse_limits limits;
  limits.max_rows = 1 << 16;

  check_window_edges(data, size, options);

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
