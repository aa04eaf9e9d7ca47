#include "partition/locality.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <utility>
#include <vector>

namespace distspmv::partition {

offset_type entries_on_top_diagonals(std::vector<global_index_type> diagonals, std::size_t k) {
  std::sort(diagonals.begin(), diagonals.end());
  std::vector<offset_type> counts;  // entries per diagonal
  for (std::size_t i = 0; i < diagonals.size();) {
    std::size_t j = i;
    while (j < diagonals.size() && diagonals[j] == diagonals[i]) ++j;
    counts.push_back(static_cast<offset_type>(j - i));
    i = j;
  }
  const std::size_t top = std::min(counts.size(), k);
  std::partial_sort(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(top), counts.end(),
                    std::greater<offset_type>());
  offset_type sum = 0;
  for (std::size_t i = 0; i < top; ++i) sum += counts[i];
  return sum;
}

locality_sample sample_locality(const csr_matrix<double>& rows, global_index_type first_row,
                                global_index_type global_rows) {
  locality_sample s;
  s.near_window = locality_sample::window(global_rows);
  const global_index_type m = std::min(rows.rows, locality_sample::sample_rows);
  // The diagonal of each entry, sorted: runs of equal ones are the diagonals' counts (a sort, not
  // a hash map: a scattered numbering puts nearly every entry on a diagonal of its own, and the
  // model of P ranks samples the whole matrix at every P).
  std::vector<global_index_type> diagonal;
  diagonal.reserve(static_cast<std::size_t>(m > 0 ? rows.row_ptr[m] : 0));
  for (global_index_type r = 0; r < m; ++r)
    for (offset_type k = rows.row_ptr[r]; k < rows.row_ptr[r + 1]; ++k) {
      const global_index_type d = rows.col_idx[k] - (first_row + r);
      ++s.entries;
      if (std::abs(d) <= s.near_window) ++s.near_diagonal;
      diagonal.push_back(d);
    }
  // Gather locality over tiles of consecutive entries of the sample.
  const offset_type sectors = std::max<offset_type>(1, (rows.cols + 3) / 4);
  const double keep = 1.0 - 1.0 / static_cast<double>(sectors);
  std::vector<global_index_type> tile;
  auto close_tile = [&] {
    if (tile.empty()) return;
    std::sort(tile.begin(), tile.end());
    s.tile_sectors += std::unique(tile.begin(), tile.end()) - tile.begin();
    // Expected distinct sectors of n uniform draws among `sectors`.
    const double n = static_cast<double>(tile.size());
    s.random_sectors_x1000 += static_cast<offset_type>(1000.0 * static_cast<double>(sectors) * (1.0 - std::pow(keep, n)));
    tile.clear();
  };
  const offset_type sampled = m > 0 ? rows.row_ptr[m] : 0;
  for (offset_type k = 0; k < sampled; ++k) {
    tile.push_back(rows.col_idx[k] / 4);
    if (static_cast<offset_type>(tile.size()) == locality_sample::tile_entries) close_tile();
  }
  close_tile();
  s.on_top_diagonals = entries_on_top_diagonals(std::move(diagonal), locality_sample::top_diagonals);
  return s;
}

locality_verdict judge_locality(const locality_sample& sum) {
  if (sum.entries == 0) return {true, "no entries sampled"};
  const double n = static_cast<double>(sum.entries);
  const double near = static_cast<double>(sum.near_diagonal) / n;
  const double diagonals = static_cast<double>(sum.on_top_diagonals) / n;
  const double sector_ratio = sum.random_sectors_x1000 > 0 ? 1000.0 * static_cast<double>(sum.tile_sectors) /
                                                                 static_cast<double>(sum.random_sectors_x1000)
                                                           : 0.0;
  locality_verdict v;
  v.local = near >= 0.9 || diagonals >= 0.9 || sector_ratio <= local_sector_ratio;
  v.reason = fmt::format("of {} sampled entries {:.0f}% lie within {} of the diagonal and {:.0f}% on the {} most used "
                         "diagonals, and tiles of {} entries touch {:.2f}x the x sectors of random columns",
                         sum.entries, 100 * near, sum.near_window, 100 * diagonals, locality_sample::top_diagonals,
                         locality_sample::tile_entries, sector_ratio);
  return v;
}

}  // namespace distspmv::partition
