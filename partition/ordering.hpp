// Locality orderings of one rank's rows (issue 16): a permutation of the owned rows, applied to
// the owned columns too (they are the same ids), so that the gathers of x made by neighbouring
// rows share 32-byte sectors and hot entries of x stay in L1/L2.
//
//   degree: rows by descending length, ties in their old order (stable). Hubs come first, and
//           their x entries (the columns most rows touch) get the smallest, adjacent ids.
//   rcm:    reverse Cuthill-McKee on the symmetrised pattern of the square local block (owned
//           rows x owned columns; ghost columns are ignored). Breadth-first from a
//           pseudo-peripheral vertex of each connected component, neighbours in increasing
//           degree, the whole order reversed at the end: rows that share columns get nearby ids,
//           which shrinks the bandwidth and profile.
//
// Each function returns `order`, new -> old: order[k] is the old local row placed at position k.
// Deterministic (no randomness, ties broken by old id).
#pragma once

#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::partition {

/// Rows by descending length (row_ptr[r + 1] - row_ptr[r]), stable.
std::vector<global_index_type> degree_order(const std::vector<offset_type>& row_ptr);

/// Reverse Cuthill-McKee of the local block of `a`: rows [0, a.rows) are local rows; a column c
/// is local row c - first when first <= c < first + a.rows, and is ignored otherwise. The
/// pattern is symmetrised (an entry and its transpose are one edge) and the diagonal ignored.
/// Needs fewer than 2^31 rows (the adjacency is 32-bit to halve its memory).
std::vector<global_index_type> rcm_order(const csr_matrix<double>& a, global_index_type first);

/// old -> new from new -> old.
std::vector<global_index_type> inverse_permutation(const std::vector<global_index_type>& order);

/// Slots ordered by use, most used first, within each group of consecutive slots (group g is
/// [group_starts[g], group_starts[g + 1]), the last ending at uses.size()); stable. Returns new ->
/// old. The GPU's halo block puts its ghosts so, per owner (dist's order_halo_block).
std::vector<index_type> most_used_first(const std::vector<offset_type>& uses, const std::vector<std::size_t>& group_starts);

/// Largest |new(r) - new(c)| over the local entries of `a` (columns as for rcm_order) after
/// renumbering rows and columns by `order` (empty: the identity). Tests and reports.
global_index_type local_bandwidth(const csr_matrix<double>& a, global_index_type first,
                                  const std::vector<global_index_type>& order = {});

}  // namespace distspmv::partition
