// Locality order of a rank's rows on the GPU (issue 37), inside the in-place setup: the order is
// computed from the local block the GPU split already holds (split_rows.hpp), and applied to the
// split there, so that the rows never go through the host (dist/setup/order.hpp is the host path,
// partition/ordering.hpp the oracle).
//
//   gpu_split.a_local ─▶ symmetrised pattern (CUB radix sort of edge keys, unique)
//        (local ids)     ─▶ components (hooking + pointer jumping), each from its lowest
//                           (degree, id) vertex, in that order
//                        ─▶ pseudo-peripheral roots (up to 4 BFS sweeps per component, as the host)
//                        ─▶ Cuthill-McKee by level-synchronous BFS over all components at once:
//                           each new level sorted by (parent's position, degree, id), reversed
//   order ─▶ permute_split_on_gpu: A_local's rows and columns (CUB segmented sort per row), the
//            diagonal, the halo rows, the kept update map
//
// Defined exactly as partition::rcm_order and partition::degree_order on the same block (the
// tests compare them), so the host and the GPU order the same matrix the same way.
#pragma once

#include <vector>

#include "dist/distributed_matrix.hpp"
#include "dist/setup/split_rows.hpp"
#include "local_kernels/device_csr.hpp"

namespace distspmv::dist {

/// The order of the rows of a square local block on the GPU, new -> old: order[k] is the old
/// local row placed at k. `method` is degree or rcm. degree sorts by the whole row's length: the
/// local block's plus `extra_length[r]` (the halo entries of row r; empty: none), as
/// partition::degree_order on the rank's full rows. rcm is partition::rcm_order of the block.
/// Needs fewer than 2^30 local entries (two edge keys per entry in one CUB call).
template <typename V>
std::vector<index_type> local_order_on_gpu(const device_csr_view<V>& a, row_order method,
                                           const std::vector<offset_type>& extra_length = {});

/// Renumbers the split's owned rows by `order` (new -> old, a permutation of the local rows):
/// A_local's rows and columns (columns sorted within each row), the diagonal, the halo rows
/// (renamed; the halo block keeps its row order) and, where kept, the update map (the new pattern
/// and, per new entry, the old entry it takes its value from).
template <typename V>
void permute_split_on_gpu(gpu_split<V>& s, const std::vector<index_type>& order);

/// A copy of a device block with its rows and columns renumbered by `order` (columns sorted
/// within each row): what `--order auto` times before it keeps an order (order_in_place).
template <typename V>
device_csr<V> permuted_csr_on_gpu(const device_csr_view<V>& a, const std::vector<index_type>& order);

/// A plain copy of a device block.
template <typename V>
device_csr<V> copy_csr_on_gpu(const device_csr_view<V>& a);

}  // namespace distspmv::dist
