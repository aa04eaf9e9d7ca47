#include "local_kernels/format_selector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "local_kernels/hdia/hdia.hpp"

namespace distspmv {

namespace detail {

// Shared with the GPU version (format_selector_cuda.cu declares them), so that both give the
// same numbers from the same sums.

/// The diagonal count stops growing at this many distinct offsets: more would not change a rule.
constexpr std::size_t counted_diagonals = 4097;

global_index_type capped_diagonals(global_index_type distinct) {
  return std::min(distinct, static_cast<global_index_type>(counted_diagonals));
}

/// The floating-point fields from s's integer fields and three sums: of the squared row lengths,
/// and of the slots of 32-row slices (each padded to its longest row) without and with sorting.
void finish_row_statistics(row_statistics& s, double sum2, double sell32_slots, double sell32_sorted_slots) {
  s.mean_length = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  s.stddev_length = std::sqrt(std::max(0.0, sum2 / static_cast<double>(s.rows) - s.mean_length * s.mean_length));
  const double nnz = std::max<double>(1.0, static_cast<double>(s.nnz));
  s.ell_padding = static_cast<double>(s.rows) * static_cast<double>(s.max_length) / nnz;
  s.sell32_padding = sell32_slots / nnz;
  s.sell32_sorted_padding = sell32_sorted_slots / nnz;
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
  const double sell32_slots = sliced(lengths);
  for (std::size_t i = 0; i < lengths.size(); i += 256)
    std::sort(lengths.begin() + static_cast<std::ptrdiff_t>(i),
              lengths.begin() + static_cast<std::ptrdiff_t>(std::min(lengths.size(), i + 256)), std::greater<>());
  detail::finish_row_statistics(s, sum2, sell32_slots, sliced(lengths));
  if (detail::wants_hdia_padding(s)) s.hdia_padding = detail::hdia_padding(hdia::hack_slots(a, {}), s.nnz);
  return s;
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
  // 2. Regular or short uneven rows: ELLR-T (its row lengths skip the padding while loads stay
  //    coalesced). Within 4% of the best non-diagonal format on poisson3d, 6% on cage11, where
  //    SELL-64 lost 17%; past ELL padding 2.5 the padded bytes cost more than CSR's row pointers.
  if (s.max_length <= 64 && s.ell_padding <= 2.5)
    return {"ellr", fmt::format("regular or short rows: max {} (mean {:.1f}), ELL padding {:.2f} <= 2.5",
                                s.max_length, s.mean_length, s.ell_padding)};
  // 3. Large irregular blocks: the even nonzero split. On H100 adaptive CSR ran 0.81-0.96x
  //    cuSPARSE on rmat:22:16 and the lognormal bench (65-67 M nonzeros), where x's gathers or the
  //    row-block tails bound it; csr-split ran 1.00-1.10x in double, but 0.81x on lognormal in
  //    float, so float keeps cuSPARSE's CSR kernel. Adaptive CSR wins on the smaller irregular
  //    matrices (uk-2007 1.08-1.10x, Slashdot 1.09-1.14x, under 4 M nonzeros). local_kernels/README.md.
  if (s.nnz >= large_irregular_nnz) {
    const auto why = fmt::format("large irregular block: {} nonzeros >= {}, max row {} vs mean {:.1f}", s.nnz,
                                 large_irregular_nnz, s.max_length, s.mean_length);
    if (s.value_bytes >= 8) return {"csr-split", why + ": even nonzero tiles, measured fastest there in double"};
    return {"cusparse", why + ": cuSPARSE CSR, measured fastest there in float"};
  }
  // 4. Anything else irregular: adaptive CSR (no padding; long rows get a warp or a block).
  return {"csr", fmt::format("irregular rows: max {} vs mean {:.1f}, SELL-32 padding {:.2f}: adaptive CSR avoids padding",
                             s.max_length, s.mean_length, s.sell32_padding)};
}

template row_statistics compute_row_statistics(const csr_matrix<double, global_index_type>&);
template row_statistics compute_row_statistics(const csr_matrix<double, index_type>&);
template row_statistics compute_row_statistics(const csr_matrix<float, index_type>&);

}  // namespace distspmv
