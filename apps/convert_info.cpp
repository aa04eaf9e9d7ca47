// `distspmv convert IN OUT` and `distspmv info FILE`.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "io/matrix_source.hpp"
#include "local_kernels/format_registry.hpp"
#include "local_kernels/format_selector.hpp"

namespace distspmv::app {

int run_convert(const std::string& in, const std::string& out, bool allow_nonfinite, std::uint64_t seed) {
  io::source_options so;
  so.allow_nonfinite = allow_nonfinite;
  so.seed = seed;
  const auto a = io::read_matrix(in, so);
  io::write_matrix(out, a);
  fmt::print("{} -> {}: {} x {}, {} nonzeros\n", in, out, a.rows, a.cols, a.nnz());
  return 0;
}

namespace {

/// Pattern and numerical symmetry of a square CSR with sorted columns (binary search per entry).
std::pair<bool, bool> symmetry(const csr_matrix<double>& a) {
  if (a.rows != a.cols) return {false, false};
  bool pattern = true, numeric = true;
  for (global_index_type r = 0; r < a.rows && pattern; ++r) {
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k];
      const auto first = a.col_idx.begin() + a.row_ptr[c], last = a.col_idx.begin() + a.row_ptr[c + 1];
      const auto it = std::lower_bound(first, last, r);
      if (it == last || *it != r) {
        pattern = numeric = false;
        break;
      }
      if (a.values[it - a.col_idx.begin()] != a.values[k]) numeric = false;
    }
  }
  return {pattern, numeric};
}

}  // namespace

int run_info(const std::string& source, const std::string& json, bool allow_nonfinite, std::uint64_t seed) {
  io::source_options so;
  so.allow_nonfinite = allow_nonfinite;
  so.seed = seed;
  const auto a = io::read_matrix(source, so);
  const row_statistics s = compute_row_statistics(a);
  const auto [pattern_symmetric, symmetric] = symmetry(a);

  fmt::print("matrix        {}\n", source);
  fmt::print("shape         {} x {}\n", s.rows, s.cols);
  fmt::print("nonzeros      {}\n", s.nnz);
  fmt::print("row length    min {}  max {}  mean {:.2f}  sigma {:.2f}\n", s.min_length, s.max_length, s.mean_length,
             s.stddev_length);
  fmt::print("empty rows    {}\n", s.empty_rows);
  fmt::print("bandwidth     {}\n", s.bandwidth);
  fmt::print("diagonals     {}{}\n", s.diagonals, s.diagonals > 4096 ? "+" : "");
  fmt::print("symmetry      {}\n", symmetric ? "symmetric" : pattern_symmetric ? "pattern-symmetric" : "unsymmetric");
  fmt::print("values        {}\n", s.pattern ? "every value 1 (a pattern: CSR stores none)" : "stored");
  fmt::print("padding       ELL {:.2f}  SELL-32 {:.2f}  SELL-32-256 (sorted) {:.2f}  SELL-32-2048 {:.2f} (top slices "
             "capped {:.2f}){}\n",
             s.ell_padding, s.sell32_padding, s.sell32_sorted_padding, s.sell32_window_padding,
             s.sell32_window_capped_padding,
             s.hdia_padding > 0    ? fmt::format("  HDIA (32-row hacks) {:.3f}", s.hdia_padding)
             : s.hdia_padding < 0 ? std::string("  HDIA refuses")
                                  : std::string());
  const double rows = static_cast<double>(std::max<global_index_type>(1, s.rows));
  fmt::print("x windows     {:.1f}% of the nonzeros in 2048-row blocks whose columns fit a shared-memory window; "
             "top slices spill {:.2f}% of the nonzeros from {:.3f}% of the rows\n",
             100 * s.window_fit, 100 * s.sell32_window_spill,
             100 * s.sell32_window_spill_rows * static_cast<double>(s.nnz) / rows);
  fmt::print("suggested     {} ({})\n", select_format(s, backend::cuda).format, select_format(s, backend::cuda).reason);

  // Bytes per format: build every host-capable format (double values, 32-bit columns).
  nlohmann::json bytes = nlohmann::json::object();
  const bool fits = a.cols <= std::numeric_limits<index_type>::max();
  fmt::print("bytes per format (double, 32-bit local columns):\n");
  if (fits) {
    const auto local = convert_csr<double, index_type>(a);
    for (const auto& f : registered_formats()) {
      if (!f.host) continue;
      try {
        const auto op = make_operator<double>(f.name, local, backend::host);
        fmt::print("  {:<14} {:>12} bytes  padding {:.2f}\n", f.name, op->stats().stored_bytes, op->stats().padding_ratio);
        bytes[f.name] = {{"bytes", op->stats().stored_bytes}, {"padding_ratio", op->stats().padding_ratio}};
      } catch (const bad_input& e) {
        fmt::print("  {:<14} not applicable: {}\n", f.name, e.problem());
      }
    }
  } else {
    fmt::print("  (more than 2^31 columns: formats need a distributed split first)\n");
  }

  if (!json.empty()) {
    nlohmann::json j = {{"matrix", source},
                        {"rows", s.rows},
                        {"cols", s.cols},
                        {"nnz", s.nnz},
                        {"row_length", {{"min", s.min_length}, {"max", s.max_length}, {"mean", s.mean_length},
                                        {"stddev", s.stddev_length}}},
                        {"empty_rows", s.empty_rows},
                        {"bandwidth", s.bandwidth},
                        {"diagonals", s.diagonals},
                        {"symmetric", symmetric},
                        {"pattern_symmetric", pattern_symmetric},
                        {"pattern", s.pattern},
                        {"window_fit", s.window_fit},
                        {"padding", {{"ell", s.ell_padding}, {"sell32", s.sell32_padding},
                                     {"sell32_sorted", s.sell32_sorted_padding},
                                     {"sell32_window", s.sell32_window_padding},
                                     {"sell32_window_capped", s.sell32_window_capped_padding},
                                     {"sell32_window_spill", s.sell32_window_spill},
                                     {"sell32_window_spill_rows", s.sell32_window_spill_rows},
                                     {"hdia", s.hdia_padding}}},
                        {"bytes_per_format", bytes}};
    std::ofstream out(json);
    out << j.dump(2) << "\n";
    if (!out) DSPMV_BAD_INPUT(json, "", "cannot write the JSON file");
  }
  return 0;
}

}  // namespace distspmv::app
