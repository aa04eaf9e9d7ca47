// The halo plan (DESIGN.md §1): local renumbering of the owned rows' columns (owned columns
// 0..n_own-1, ghosts after, grouped by owner), the split of the owned rows into A_local (owned
// columns) and A_halo (ghost columns, boundary rows only, compressed), and per neighbour the
// entries of x to send and the range of ghosts to receive.
#pragma once

#include <mpi.h>

#include <limits>
#include <vector>

#include "common/csr_matrix.hpp"
#include "dist/setup/assign.hpp"

namespace distspmv::dist {

/// Who sends what to whom in one apply. Offsets index the packed send buffer / the ghost buffer.
struct halo_pattern {
  std::vector<int> send_ranks;
  std::vector<offset_type> send_offsets{0};  ///< send_ranks.size() + 1
  std::vector<int> recv_ranks;
  std::vector<offset_type> recv_offsets{0};  ///< recv_ranks.size() + 1
  offset_type send_total() const { return send_offsets.back(); }
  offset_type recv_total() const { return recv_offsets.back(); }
};

struct halo_plan {
  csr_matrix<double, index_type> a_local;  ///< owned rows x owned columns
  csr_matrix<double, index_type> a_halo;   ///< boundary rows x ghost columns
  std::vector<index_type> halo_rows;       ///< owned row of each A_halo row
  std::vector<global_index_type> ghost_ids;  ///< new global id of each ghost column, grouped by owner
                                             ///< (sorted, unless order_halo_block ordered each group)
  std::vector<index_type> send_idx;        ///< owned rows whose x entries are packed, by neighbour
  halo_pattern pattern;
  /// Owned CSR entry e goes to a_local.values[target[e]] if target[e] >= 0, else to
  /// a_halo.values[-1 - target[e]] (update_values).
  std::vector<offset_type> entry_target;
  /// After order_halo_block: a_halo's entry k was entry halo_entry_order[k] of the block as split
  /// (empty: not ordered). The refills of update_values write the split's layout.
  std::vector<offset_type> halo_entry_order;
};

/// Refuses, on every rank, a rank whose owned rows and ghost columns do not fit 32-bit local ids
/// (collective: setup step 'halo plan').
void check_local_ids(MPI_Comm comm, global_index_type owned_rows, std::size_t ghosts);

/// Which halo blocks order_halo_block orders: irregular ones (a row longer than
/// `rows_longer_than`) of at least `min_nnz` entries. The default orders none.
struct halo_order_rule {
  offset_type rows_longer_than = std::numeric_limits<offset_type>::max();
  offset_type min_nnz = std::numeric_limits<offset_type>::max();
};

/// Builds the plan from this rank's owned rows. Collective (one exchange of requested ids). The
/// halo block is ordered (order_halo_block) where `rule` says.
halo_plan build_halo_plan(MPI_Comm comm, const owned_rows& rows, halo_order_rule rule);

/// Orders the halo block for the GPU's gathers where `rule` says (large irregular blocks; meshes
/// keep theirs): the ghosts within each owner's group by the number of the block's entries that
/// use them, most first (stable); the rows keep their order, each sorted by the new columns. Hub
/// columns then sit together, as the one-GPU degree order puts them (the ghosts as split lie in the
/// caller's numbering, random on R-MAT). Ghost slots are the rank's own: nothing outside the plan
/// changes, and before plan_exchange the owners learn the new order with the ids they are asked
/// for. Returns whether it ordered.
bool order_halo_block(halo_plan& plan, const std::vector<global_index_type>& row_offsets, halo_order_rule rule);

/// After update_values refilled plan.a_halo's values in the layout of the split: the same values
/// in the ordered layout (nothing where the block was not ordered).
void reorder_halo_values(halo_plan& plan);

/// Puts the halo block's rows in the order of the rows they add to (halo_rows ascending, as the
/// split made them): after an order renamed the rank's rows, so that the scatter of the halo
/// block's products into y runs forward instead of jumping (rmat:22:16 on 2 GPUs: 13-17 us of an
/// apply). Moves a_halo's rows and halo_rows; where `keep_entry_order` (update_values), records
/// the move in halo_entry_order.
void sort_halo_rows(halo_plan& plan, bool keep_entry_order);

/// The exchange part of the plan (pattern, send_idx) from plan.ghost_ids: each ghost's owner is
/// asked for it. `row_offsets` has ranks + 1 entries; this rank owns [row_offsets[me],
/// row_offsets[me + 1]). Collective. (The GPU setup finds the ghosts itself, then calls this.)
void plan_exchange(MPI_Comm comm, const std::vector<global_index_type>& row_offsets, halo_plan& plan);

/// Refills a_local and a_halo values from owned CSR values (same pattern).
void scatter_values(const std::vector<double>& owned_values, halo_plan& plan);

}  // namespace distspmv::dist
