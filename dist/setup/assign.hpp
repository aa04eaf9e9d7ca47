// Partitioning and redistribution (DESIGN.md §1): which rank owns which row, the new global
// numbering (each rank's rows contiguous, in rank order), one exchange of rows to their owners,
// and the maps that move vectors and values between the caller's layout and the partitioned one.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/csr_matrix.hpp"
#include "dist/distributed_matrix.hpp"
#include "dist/setup/load.hpp"

namespace distspmv::dist {

/// Moves per-row and per-entry data between the caller's layout and the partitioned layout.
/// Sending side: caller rows in `row_send_order` (grouped by destination rank, each row's entries
/// in the caller's order); receiving side: received row k lands at owned row row_recv_pos[k] and
/// received entry k at owned CSR entry entry_recv_pos[k].
struct layout_map {
  /// Rows stay where they were read (one rank, or the GPU setup's block partition): the two
  /// layouts are the same, every move is a copy, and none of the arrays below is kept.
  bool identity = false;
  global_index_type identity_rows = 0;
  offset_type identity_entries = 0;
  /// An identity map whose rows were ordered in place (the GPU order, gpu_order.hpp): caller row
  /// i is owned row local_new_pos[i] (empty: row i). Rows move by it; entries never do (the
  /// in-place update_values refills from its own kept map).
  std::vector<index_type> local_new_pos;
  std::vector<std::int64_t> row_send_counts, row_recv_counts;
  std::vector<global_index_type> row_send_order;
  std::vector<global_index_type> row_recv_pos;
  std::vector<std::int64_t> entry_send_counts, entry_recv_counts;
  std::vector<offset_type> entry_recv_pos;
  std::vector<offset_type> caller_row_ptr;  ///< the caller's row pointer (entry order of update_values)
};

/// This rank's rows after redistribution.
struct owned_rows {
  std::vector<global_index_type> row_offsets;  ///< ranks + 1: rank r owns new ids [off[r], off[r+1])
  csr_matrix<double> a;                        ///< owned rows, new global column ids, sorted
  std::vector<global_index_type> caller_ids;   ///< caller-layout id of each owned row
};

/// Row → rank. Block: contiguous, nnz-balanced, computed locally from prefix sums. METIS: k-way on
/// the symmetrised pattern gathered on rank 0 (vertex weights = row nonzeros). PT-Scotch: k-way on
/// the same graph, distributed (each rank its rows' adjacency). Label propagation (lp): the block
/// partition refined on that distributed graph. Collective.
std::vector<int> assign_parts(MPI_Comm comm, const caller_slice& slice, partitioner method, int seed);

/// Sends rows to their owners, renumbers columns, fills `map`. Collective.
owned_rows redistribute(MPI_Comm comm, const caller_slice& slice, const std::vector<int>& parts,
                        bool contiguous_parts, layout_map& map);

/// Moves per-row values (to_partitioned) and back (from_partitioned), and entry values.
template <typename T>
void rows_to_partitioned(const layout_map& map, const T* caller, T* owned, MPI_Comm comm);
template <typename T>
void rows_from_partitioned(const layout_map& map, const T* owned, T* caller, MPI_Comm comm);
template <typename T>
void entries_to_partitioned(const layout_map& map, const T* caller, T* owned, MPI_Comm comm);

}  // namespace distspmv::dist
