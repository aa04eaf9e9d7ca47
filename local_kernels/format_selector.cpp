#include "local_kernels/format_selector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "local_kernels/ellr/ellr.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "local_kernels/sell/sell.hpp"

namespace distspmv {

namespace detail {

// Shared with the GPU version (format_selector_cuda.cu declares them), so that both give the
// same numbers from the same sums.

/// The diagonal count stops growing at this many distinct offsets: more would not change a rule.
constexpr std::size_t counted_diagonals = 4097;

global_index_type capped_diagonals(global_index_type distinct) {
  return std::min(distinct, static_cast<global_index_type>(counted_diagonals));
}

/// The floating-point fields from s's integer fields and the sums: of the squared row lengths, of
/// the slots of 32-row slices (each padded to its longest row) without and with sorting, and of
/// SELL's x-window blocks.
void finish_row_statistics(row_statistics& s, double sum2, double sell32_slots, double sell32_sorted_slots,
                           const window_sums& windows) {
  s.mean_length = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  s.stddev_length = std::sqrt(std::max(0.0, sum2 / static_cast<double>(s.rows) - s.mean_length * s.mean_length));
  const double nnz = std::max<double>(1.0, static_cast<double>(s.nnz));
  s.ell_padding = static_cast<double>(s.rows) * static_cast<double>(s.max_length) / nnz;
  s.sell32_padding = sell32_slots / nnz;
  s.sell32_sorted_padding = sell32_sorted_slots / nnz;
  s.sell32_window_padding = windows.slots / nnz;
  s.sell32_window_capped_padding = windows.capped_slots / nnz;
  s.sell32_window_spill = windows.spilled / nnz;
  s.sell32_window_spill_rows = windows.spilled_rows / nnz;
  s.window_fit = windows.fit_nnz / nnz;
}

spill_costs window_spill_costs(int value_bytes) {
  const auto value = static_cast<std::size_t>(value_bytes);
  return {value + (value_bytes == 8 ? sizeof(std::int16_t) : sizeof(index_type)), value + sizeof(index_type),
          static_cast<std::size_t>(sell::sell_params{}.spill_row_bytes)};
}

global_index_type window_fit_columns(int value_bytes) {
  return static_cast<global_index_type>(sell::window_max_bytes) / value_bytes;
}

bool wants_hdia_padding(const row_statistics& s) {
  return s.nnz > 0 && s.diagonals > 32 && s.max_length <= hdia::hdia_params{}.max_diagonals_per_hack;
}

double hdia_padding(offset_type slots, offset_type nnz) {
  return slots < 0 ? -1.0 : static_cast<double>(slots) / static_cast<double>(std::max<offset_type>(1, nnz));
}

}  // namespace detail

template <typename V, typename I>
row_statistics compute_row_statistics(const csr_matrix<V, I>& a) {
  row_statistics s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.nnz = a.nnz();
  s.value_bytes = static_cast<int>(sizeof(V));
  s.pattern = !a.values.empty() && std::all_of(a.values.begin(), a.values.end(), [](V v) { return v == V(1); });
  if (a.rows == 0) return s;
  s.min_length = a.row_length(0);
  double sum2 = 0;
  std::unordered_set<global_index_type> diagonals;
  for (global_index_type r = 0; r < a.rows; ++r) {
    const offset_type len = a.row_length(r);
    s.min_length = std::min(s.min_length, len);
    s.max_length = std::max(s.max_length, len);
    s.empty_rows += len == 0;
    sum2 += static_cast<double>(len) * static_cast<double>(len);
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type off = static_cast<global_index_type>(a.col_idx[k]) - r;
      s.bandwidth = std::max(s.bandwidth, std::abs(off));
      if (diagonals.size() < detail::counted_diagonals) diagonals.insert(off);  // counting stops being useful beyond
    }
  }
  s.diagonals = detail::capped_diagonals(static_cast<global_index_type>(diagonals.size()));

  // Slots of 32-row slices, each padded to its longest row.
  auto sliced = [&](const std::vector<offset_type>& lengths) {
    double stored = 0;
    for (std::size_t i = 0; i < lengths.size(); i += 32) {
      const auto end = lengths.begin() + static_cast<std::ptrdiff_t>(std::min(lengths.size(), i + 32));
      stored += 32.0 * static_cast<double>(*std::max_element(lengths.begin() + static_cast<std::ptrdiff_t>(i), end));
    }
    return stored;
  };
  std::vector<offset_type> lengths(a.rows);
  for (global_index_type r = 0; r < a.rows; ++r) lengths[r] = a.row_length(r);
  auto sorted_in = [&lengths](std::size_t window) {
    for (std::size_t i = 0; i < lengths.size(); i += window)
      std::sort(lengths.begin() + static_cast<std::ptrdiff_t>(i),
                lengths.begin() + static_cast<std::ptrdiff_t>(std::min(lengths.size(), i + window)), std::greater<>());
  };
  const double sell32_slots = sliced(lengths);
  sorted_in(256);
  const double sell32_sorted_slots = sliced(lengths);
  sorted_in(sell::window_rows);
  detail::window_sums windows;
  windows.slots = windows.capped_slots = sliced(lengths);
  // Each block's top slice (its 32 longest rows, 0 past the end) capped as sell-w caps it.
  const auto costs = detail::window_spill_costs(s.value_bytes);
  for (std::size_t first = 0; first < lengths.size(); first += sell::window_rows) {
    offset_type top[32] = {};
    std::copy_n(lengths.begin() + static_cast<std::ptrdiff_t>(first), std::min<std::size_t>(32, lengths.size() - first),
                top);
    const offset_type cap = sell::detail::spill_cap(top, costs.slot, costs.spill, costs.row);
    windows.capped_slots -= 32.0 * static_cast<double>(top[0] - cap);
    for (const offset_type len : top)
      if (len > cap) {
        windows.spilled += static_cast<double>(len - cap);
        windows.spilled_rows += 1;
      }
  }
  // x windows: the nonzeros of blocks whose columns span few enough for shared memory.
  for (global_index_type first = 0; first < a.rows; first += sell::window_rows) {
    const global_index_type last = std::min<global_index_type>(a.rows, first + sell::window_rows);
    const offset_type begin = a.row_ptr[first], end = a.row_ptr[last];
    if (begin == end) continue;
    const auto [lo, hi] = std::minmax_element(a.col_idx.begin() + begin, a.col_idx.begin() + end);
    if (static_cast<global_index_type>(*hi) - *lo < detail::window_fit_columns(s.value_bytes))
      windows.fit_nnz += static_cast<double>(end - begin);
  }
  detail::finish_row_statistics(s, sum2, sell32_slots, sell32_sorted_slots, windows);
  if (detail::wants_hdia_padding(s)) s.hdia_padding = detail::hdia_padding(hdia::hack_slots(a, {}), s.nnz);
  return s;
}

format_bytes format_bytes_per_nonzero(const row_statistics& s) {
  format_bytes b;
  const double value = s.value_bytes, column = sizeof(index_type), per_row = s.mean_length > 0 ? 1.0 / s.mean_length : 0;
  // 16-bit columns: ELLR's offsets are from the row, SELL's from the sorted position (a row moves
  // less than its window of 256).
  b.ellr_16bit_columns = s.bandwidth <= static_cast<global_index_type>(ellr::max_column_offset);
  b.sell_16bit_columns =  // in double only (format_registry.cpp)
      s.value_bytes == 8 && s.bandwidth + 255 <= static_cast<global_index_type>(sell::max_column_offset);
  const double short_column = sizeof(std::int16_t);
  // ELLR: padded slots of value and column, and the row lengths. SELL: sorted slots, the row
  // permutation. CSR: no values for a pattern, a row offset (cuSPARSE's and ours).
  b.ellr = s.ell_padding * (value + (b.ellr_16bit_columns ? short_column : column)) + per_row * column;
  b.sell = s.sell32_sorted_padding * (value + (b.sell_16bit_columns ? short_column : column)) + per_row * column;
  // SELL with x windows: rows sorted in blocks of 2048, 16-bit columns in double where a row's
  // columns lie within an int16 of any position of its block. In double the top slices are capped
  // and their spill costs a value and a column per entry and spill_row_bytes per row (the
  // builder's weights: its round trips). In float the spill is priced as the padding it replaces:
  // there sell-w with a spill ran 0.72-0.85x cuSPARSE CSR on lognormal rows of sigma 0.8-1.4
  // where in double it ran 1.05-1.41x (jobs/results/2026-12-02_h200_small_spill, runs 2-3).
  const bool windows_16bit = s.value_bytes == 8 && s.bandwidth + sell::window_rows - 1 <=
                                                       static_cast<global_index_type>(sell::max_column_offset);
  const double window_slot = value + (windows_16bit ? short_column : column);
  const auto spill = detail::window_spill_costs(s.value_bytes);
  const double capped = s.sell32_window_capped_padding * window_slot +
                        s.sell32_window_spill * static_cast<double>(spill.spill) +
                        s.sell32_window_spill_rows * static_cast<double>(spill.row);
  b.sell_windows = per_row * column + (s.value_bytes == 8 ? capped : s.sell32_window_padding * window_slot);
  b.csr = (s.pattern ? 0 : value) + column + per_row * sizeof(offset_type);
  return b;
}

format_choice select_format(const row_statistics& s, backend where) {
  if (where == backend::host)
    return {"csr", "host backend: CSR is the host format (no padding, OpenMP over rows)"};
  if (s.nnz == 0) return {"csr", "empty block"};
  // Rules and thresholds from the H100 bench of local_kernels/README.md (jobs/results/):
  // 1. Few, well-filled diagonals (stencils): HDIA stores no column indices, a third fewer
  //    bytes than any ELL/CSR layout; 1.5x cuSPARSE CSR on poisson3d and stencil27.
  if (s.diagonals <= 32 && s.mean_length >= 0.5 * static_cast<double>(s.diagonals))
    return {"hdia", fmt::format("{} diagonals, mean row length {:.1f}: diagonal storage needs no column indices",
                                s.diagonals, s.mean_length)};
  // 1b. The same structure hack by hack: a stencil renumbered by a partition (METIS) has many
  //     distinct offsets over the block, but each 32-row hack still has about 27, and HDIA pads
  //     by 2-7% (gen:stencil27 after METIS, 2 parts). HDIA then moves 8 * padding bytes per
  //     nonzero against ELLR's 12 * ELL padding: up to 1.25 it keeps most of its lead.
  if (s.hdia_padding > 0 && s.hdia_padding <= 1.25 && s.mean_length >= 4) {
    const bool capped = s.diagonals >= static_cast<global_index_type>(detail::counted_diagonals);
    return {"hdia", fmt::format("{}{} diagonals over the block, but HDIA's 32-row hacks pad only {:.3f}x: diagonal "
                                "storage needs no column indices",
                                s.diagonals, capped ? "+" : "", s.hdia_padding)};
  }
  // 2a. x windows (sell-w): where the columns of nearly every 2048-row block fit a window of x in
  //     shared memory, a warp's 32 gathers cost a few shared-memory wavefronts instead of up to 32
  //     L2 sectors, which bound every CSR kernel (local_kernels/README.md). Measured on one H200
  //     (jobs/results/2026-11-26_h200_x_windows, runs 82-97), against cuSPARSE CSR: the bench
  //     lognormal (rows up to ~1000, sorted padding 1.13) 1.29-1.33x in double where csr-split ran
  //     1.07x, 0.87-1.03x in float (its bytes 1.09x CSR's); a regular lognormal (band 1000)
  //     1.48-1.51x in double and up to 1.27x in float where SELL ran 1.14x and 1.04x; 1.18-1.55x
  //     in double and 1.11-1.56x in float on the lognormal shapes it picks (two unseen). A block
  //     whose window does not fit gathers from global memory at about a third of SELL's speed
  //     (band 5000: 0.49x), hence 95%. Blocks that stay in L2 keep the rules below. Priced with
  //     its top-slice spill in double (format_bytes_per_nonzero), sell-w took five of eight
  //     lognormal shapes of sigma 0.7-1.4 (none in the bench set) from csr-split or cuSPARSE:
  //     1.00-1.08x -> 1.05-1.41x cuSPARSE CSR, none slower (jobs/results/2026-12-02_h200_small_spill,
  //     run 2). A block needs a window block for every SM (sell_w_min_window_blocks): long rows in
  //     few rows left SMs idle (mean 101 in 74 window blocks: 0.84x, 2026-12-02_h200_long_rows).
  const global_index_type window_blocks = (s.rows + sell::window_rows - 1) / sell::window_rows;
  if (const auto bytes = format_bytes_per_nonzero(s);
      bytes.csr * static_cast<double>(s.nnz) > static_cast<double>(l2_resident_bytes) && s.window_fit >= 0.95 &&
      bytes.sell_windows <= 1.05 * bytes.csr && window_blocks >= sell_w_min_window_blocks)
    return {"sell-w", fmt::format("{:.1f}% of the nonzeros in 2048-row blocks whose x fits in shared memory, sorted "
                                  "padding {:.2f} ({:.2f} with the top slices capped, {:.1f}% spilled); bytes per "
                                  "nonzero: SELL with x windows {:.1f}, CSR {:.1f}",
                                  100 * s.window_fit, s.sell32_window_padding, s.sell32_window_capped_padding,
                                  100 * s.sell32_window_spill, bytes.sell_windows, bytes.csr)};
  // 2. Rows of at most 64 entries: SELL-C-sigma where its bytes per nonzero (rows sorted in
  //    windows of 256, 16-bit columns in double) cost at most 1.05x CSR's; ELLR in blocks that
  //    fit in L2 (format_bytes_per_nonzero). Measured on one H200 (jobs/results/
  //    2026-11-26_h200_ell_bytes, runs 68-73) on lognormal row lengths of mean 4.7-24.7 (ELL
  //    padding 1.31-4.71, sorted SELL padding 1.02-1.14), 4-98 M nonzeros:
  //    - the earlier rule (ELLR up to ELL padding 2.5, made from poisson3d and cage11) ran ELLR at
  //      0.63-0.93x cuSPARSE on five such blocks: ELLR reads its padding;
  //    - SELL ran 1.10-1.42x in double (16-bit columns: up to 13% of it) and 1.03-1.35x in float at
  //      sorted padding up to 1.06, 1.05x and 0.93x at 1.14 (csr-split 1.06x, cuSPARSE in float);
  //      on one block of very local columns (band 100) 1.06x where csr-split ran 1.18x;
  //    - ELLR beat SELL only on stencils (1.28x against 1.25x; HDIA takes those) and on blocks
  //      that stay in L2: cage11 (padding 2.24, 13 MB) 1.53-1.56x, a lognormal block of 14 MB
  //      1.21x (SELL 1.10x); at 27 MB SELL won (1.32x against 1.15x). There ELLR keeps the
  //      earlier rule (ELL padding up to 2.5); more padding goes to the irregular path.
  //    The rule was made from the shapes with mean 12 and checked on the others (runs 70-75):
  //    auto ran 0.99-1.42x (0.99x: cuSPARSE itself), within 10% of the best format.
  if (s.max_length <= 64) {
    const auto bytes = format_bytes_per_nonzero(s);
    const auto shape = fmt::format("rows of at most 64 entries (max {}, mean {:.1f}), ELL padding {:.2f}, sorted "
                                   "SELL padding {:.2f}; bytes per nonzero: ELLR {:.1f}, SELL {:.1f}{}, CSR {:.1f}",
                                   s.max_length, s.mean_length, s.ell_padding, s.sell32_sorted_padding, bytes.ellr,
                                   bytes.sell, bytes.sell_16bit_columns ? " (16-bit columns)" : "", bytes.csr);
    const double ellr_block = bytes.ellr * static_cast<double>(s.nnz);
    if (ellr_block <= static_cast<double>(l2_resident_bytes)) {
      if (s.ell_padding <= 2.5)
        return {"ellr", shape + fmt::format(": ELLR's {:.0f} MB stay in L2, where padding up to 2.5 costs little",
                                            ellr_block / 1e6)};
    } else if (bytes.sell <= 1.05 * bytes.csr) {
      return {"sell", shape + ": SELL-C-sigma's bytes within 1.05x CSR's"};
    }
  }
  // 3. Irregular rows: adaptive CSR, csr-split or cuSPARSE CSR, by size, value type and whether
  //    the block has values. Measured on one H200 against cuSPARSE CSR on R-MAT (scales 14-22)
  //    and lognormal matrices (0.2-67 M nonzeros) with and without values, and the small graphs
  //    (jobs/results/2026-11-26_h200_mixed, runs 33-35; ratio = cuSPARSE time / ours):
  //    - with values, adaptive CSR wins up to about 1 M nonzeros (1.05-1.26x in double,
  //      1.04-1.14x in float) and loses from 1.8 M on (0.96-0.98x at 1.8-2 M, 0.68-0.95x at 4-32 M);
  //      csr-split ties or loses below 32 M (0.72-0.99x) and wins or ties above in double (0.98x
  //      at 32 M, 1.00x rmat:22:16, 1.07x the lognormal bench) but not in float (0.79x);
  //    - without values (a pattern reads 4 bytes per nonzero against cuSPARSE's 8 or 12), adaptive
  //      CSR wins up to 4 M nonzeros (1.13-1.69x), csr-split from 16 M in double (1.00-1.12x);
  //      in float csr-split ran 1.03-1.07x on R-MAT but 0.86x on a banded lognormal pattern.
  const auto shape = fmt::format("irregular rows: max {} vs mean {:.1f}, {} nonzeros{}", s.max_length, s.mean_length,
                                 s.nnz, s.pattern ? ", every value 1" : "");
  const bool in_double = s.value_bytes >= 8;
  // 3a. Column-sorted row panels (panel/panel.hpp): a thread block multiplies a panel of rows
  //     with its entries sorted by column, so a warp's gathers share x's sectors wherever columns
  //     repeat in the panel (hubs) or lie close. Measured on one H200 against cuSPARSE CSR
  //     (jobs/results/2026-11-27_h200_panels, runs 124-126), caller's numbering: R-MAT of 16-134 M
  //     nonzeros and mean row 15-48 1.05-1.68x in double (csr-split 0.98-1.01x) and 1.18-1.57x in
  //     float; lognormal rows with columns spread over 5000-100000 1.07-1.72x in double, 1.48-2.23x
  //     in float; after rcm or degree order rmat:22:16 ran 1.56-1.71x. It loses where a block stays
  //     near L2 (rmat:19:16, 8 M: 0.92x) and on rmat:22:8 in double (mean row 7.7: 0.94x; a panel
  //     holds at most 6144 rows, so short rows give short panels and few repeated columns);
  //     blocks whose x windows fit keep sell-w or the rules above.
  if (!s.pattern && s.nnz >= large_irregular_nnz && s.window_fit < 0.95 && s.mean_length >= panel_min_mean_length)
    return {"panel", shape + fmt::format(": row panels sorted by column share x's gathers (from {} M nonzeros, mean "
                                         "row length {:.0f} or more, x windows not fitting: {:.0f}%)",
                                         large_irregular_nnz >> 20, panel_min_mean_length, 100 * s.window_fit)};
  if (s.pattern) {
    if (s.nnz < large_irregular_nnz)
      return {"csr", shape + ": adaptive CSR stores no values for a pattern, measured fastest below 16 M nonzeros"};
    if (in_double)
      return {"csr-split", shape + ": even nonzero tiles without values, measured fastest from 16 M nonzeros in double"};
    return {"cusparse", shape + ": cuSPARSE CSR, the measured safe choice for large patterns in float"};
  }
  if (s.nnz < small_irregular_nnz)
    return {"csr", shape + ": adaptive CSR, measured fastest below 1.5 M nonzeros"};
  if (in_double && s.nnz >= huge_irregular_nnz)
    return {"csr-split", shape + ": even nonzero tiles, measured fastest or even from 32 M nonzeros in double"};
  return {"cusparse", shape + ": cuSPARSE CSR, measured fastest for irregular blocks with values of this size"};
}

/// Measured on one H200 (jobs/results/2026-11-28_h200_gpu_order, run 1), rmat:22:8 (mean row 7.7):
/// in the caller's order the rule is right (cuSPARSE 295.0 us, panel 314.2), after an order it is
/// not (rcm: cuSPARSE 267.0, panel 201.6; degree: 270.7 and 194.7). The rule sees the row lengths,
/// which an order does not change, so the order's trial times panel beside it. On one rank the
/// trial also times panel on blocks below large_irregular_nnz with longer rows: since rows longer
/// than a panel are cut into parts (jobs/results/2026-12-01_h200_panel_split), panel ran 1.05-1.18x
/// cuSPARSE on blocks of 8-10 M nonzeros with rows 1.5-3x a panel (0.66-0.93x before).
std::vector<format_choice> trial_formats(const row_statistics& s, backend where, bool one_rank) {
  std::vector<format_choice> c{select_format(s, where)};
  const bool short_rows = s.mean_length < panel_min_mean_length;
  if (where == backend::cuda && c.front().format != "panel" && !s.pattern && s.nnz >= trial_panel_nnz &&
      s.window_fit < 0.95 && (short_rows || one_rank))
    c.push_back({"panel", fmt::format("irregular rows, mean {:.1f}, {:.1f} M nonzeros: row panels sorted by column, "
                                      "timed against {} (the rule alone would not pick panel)",
                                      s.mean_length, static_cast<double>(s.nnz) / 1e6, c.front().format)});
  return c;
}

bool halo_trial_times_panel(const row_statistics& s, const format_choice& pick) {
  return pick.format != "panel" && !s.pattern && s.nnz >= halo_panel_trial_nnz && s.window_fit < 0.95 &&
         s.mean_length >= panel_min_mean_length;
}

template row_statistics compute_row_statistics(const csr_matrix<double, global_index_type>&);
template row_statistics compute_row_statistics(const csr_matrix<double, index_type>&);
template row_statistics compute_row_statistics(const csr_matrix<float, index_type>&);

}  // namespace distspmv
