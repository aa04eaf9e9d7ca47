// The matrices every format and backend is checked on (STYLE.md §6): random ones larger than a
// warp or a hack, odd sizes, 0 rows, empty rows, one row longer than shared memory, a dense row,
// a dense column. All deterministic.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::test {

struct named_matrix {
  std::string name;
  csr_matrix<double, index_type> a;
};

/// Rows given as lists of (column, value), in storage order.
using row_entries = std::vector<std::vector<std::pair<index_type, double>>>;

/// The CSR matrix of `rows` with `cols` columns, entries stored as listed (not sorted or checked).
csr_matrix<double, index_type> from_rows(global_index_type cols, const row_entries& rows);

/// Random rows x cols, row lengths uniform in [min_len, max_len], distinct sorted columns,
/// values uniform in [-1, 1).
csr_matrix<double, index_type> random_csr(global_index_type rows, global_index_type cols, int min_len, int max_len,
                                          std::uint64_t seed);

/// Rows given by their lengths (each at most cols); columns drawn uniformly (distinct, sorted),
/// values uniform in [-1, 1).
csr_matrix<double, index_type> from_lengths(global_index_type cols, const std::vector<global_index_type>& lengths,
                                            std::uint64_t seed);

/// Rows of 3-7 entries with a few long ones in every 2048-row block, so that sell-w's top slices
/// spill: every 150th row 60-99 entries, every 997th 400; columns as from_lengths (cols >= 400).
csr_matrix<double, index_type> spilling_rows(global_index_type rows, global_index_type cols, std::uint64_t seed);

/// The edge-case set: empty (0x0 and 0x5), all-empty rows, odd sizes 999/1001/50007, many empty
/// rows, one very long row (200000 entries), single dense row, single dense column, a
/// power-law-ish matrix, a banded one, a diagonal one.
std::vector<named_matrix> edge_case_matrices();

/// One part of a 27-point stencil on an n^3 grid, as a partitioner such as METIS leaves it: the
/// grid points on one side of a stepped cut (x < n / 2 + 3 * ((y / 8 + z / 8) % 3) - 3), renumbered
/// in their old order, with the columns of those points only (the rest is the halo). Every
/// 32-row hack keeps about 27 diagonals, but the block has many distinct offsets.
csr_matrix<double, index_type> stencil27_part(int n);

/// P A P^T for a random permutation P: hides the natural ordering that makes blocks look good.
csr_matrix<double> randomly_relabelled(const csr_matrix<double>& a, std::uint64_t seed);

}  // namespace distspmv::test
