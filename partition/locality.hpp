// Whether a numbering is already local: `--order auto`'s sample rule (issue 16), without MPI, so
// that the setup (dist/setup/order.hpp sums the ranks' samples and asks judge_locality) and the
// model of P ranks (apps/model) apply the same rule.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::partition {

/// What `--order auto` looks at: the first rows of each rank's caller slice.
struct locality_sample {
  offset_type entries = 0;
  offset_type near_diagonal = 0;     ///< |column - row| <= window(global rows)
  offset_type on_top_diagonals = 0;  ///< on the top_diagonals most used diagonals of the sample
  offset_type near_window = 0;       ///< window(global rows)
  /// Gather locality: over tiles of tile_entries consecutive entries, the distinct 32-byte
  /// sectors of x (4 doubles) the tiles touch, and what uniformly random columns would touch
  /// (random_sectors; the sum over tiles, times 1000). Their ratio is near 1 for a scattered
  /// numbering (R-MAT) and far below for one whose rows share x's sectors (meshes, bands, a web
  /// crawl's hosts), whatever the matrix's size.
  offset_type tile_sectors = 0;
  offset_type random_sectors_x1000 = 0;
  static constexpr offset_type tile_entries = 2048;  ///< csr-split's tile (csr.hpp)
  /// Near the diagonal: within 4096 rows (32 KiB of x in double), and within a 32nd of the
  /// matrix (else every entry of a small matrix would be near).
  static global_index_type window(global_index_type global_rows) {
    return std::max<global_index_type>(1, std::min<global_index_type>(4096, global_rows / 32));
  }
  static constexpr std::size_t top_diagonals = 64;           ///< a 27-point stencil has 27
  static constexpr global_index_type sample_rows = 65536;

  /// The ranks' samples summed (the window: the largest).
  locality_sample& operator+=(const locality_sample& o) {
    entries += o.entries;
    near_diagonal += o.near_diagonal;
    on_top_diagonals += o.on_top_diagonals;
    near_window = std::max(near_window, o.near_window);
    tile_sectors += o.tile_sectors;
    random_sectors_x1000 += o.random_sectors_x1000;
    return *this;
  }
};

/// The entries on the `k` most used diagonals, of entries whose diagonals (column - row) are
/// `diagonals` (taken by value: sorted here).
offset_type entries_on_top_diagonals(std::vector<global_index_type> diagonals, std::size_t k);

/// The sample of rows [0, min(rows.rows, sample_rows)) of a caller slice that starts at global
/// row `first_row` (columns are global ids) of a matrix of `global_rows` rows.
locality_sample sample_locality(const csr_matrix<double>& rows, global_index_type first_row,
                                global_index_type global_rows);

/// The rule on the summed samples: the numbering is already local (90% of the entries within the
/// window of the diagonal: banded; or on the top_diagonals most used diagonals: stencils, where
/// HDIA needs the diagonals; or tiles that touch at most local_sector_ratio of the sectors random
/// columns would), else an order may pay. `reason` gets the figures. One H200, rcm against none
/// (jobs/results/2026-11-26_h200_mixed, run 32): rcm cost up to 8% at ratios 0.05 (uk-2007) and
/// 0.17 (cage11), gained 5-17% at 0.25-0.46 (facebook-combined, email-Enron, nh2010) and 7-20% at
/// 0.57-0.96 (social graphs), tied on a ship mesh at 0.45 and on R-MAT at 0.95 with adaptive CSR
/// (13% with csr-split).
constexpr double local_sector_ratio = 0.2;
struct locality_verdict {
  bool local = true;  ///< no entries sampled counts as local
  std::string reason;
};
locality_verdict judge_locality(const locality_sample& sum);

/// Where the rule says an order may pay, the GPU setup times the rank's product in each order and
/// keeps an order only where it beats the read order by this fraction (issue 37's "never costs
/// more than 2%"; dist/matrix_order.cpp, and the model's prediction of it).
constexpr double order_trial_margin = 0.02;

}  // namespace distspmv::partition
