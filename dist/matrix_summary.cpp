// A distributed matrix's transport choice, its summaries (per rank and of the partition) and
// the queries of the public API.
#include <algorithm>
#include <string>
#include <vector>

#include "dist/matrix_impl.hpp"

namespace distspmv {

namespace {

/// The ranks this rank sends to or receives from, sorted, once each.
std::vector<int> neighbour_ranks(const halo_pattern& pattern) {
  std::vector<int> peers(pattern.send_ranks);
  peers.insert(peers.end(), pattern.recv_ranks.begin(), pattern.recv_ranks.end());
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return peers;
}

}  // namespace

template <typename V>
void distributed_matrix<V>::impl::choose_and_make_transport() {
  mpi = query_mpi();
  transport_context context;
  context.where = options.where;
  context.ranks = ranks;
  context.gpu_shared = gpu_shared(placement);
  context.single_node = single_host(placement);
  context.nccl_compiled = DISTSPMV_HAVE_NCCL;
  context.nvshmem_compiled = DISTSPMV_HAVE_NVSHMEM;
  context.mpi_cuda_aware = mpi.cuda_aware;
  const auto sums = allreduce_sum({owned_nnz, plan.a_halo.nnz()}, comm);
  context.mean_nnz_per_rank = static_cast<double>(sums[0]) / ranks;
  context.halo_fraction = sums[0] > 0 ? static_cast<double>(sums[1]) / static_cast<double>(sums[0]) : 0.0;
  collective_try(comm, "transport", [&] { choice = choose_transport(options.transport, context); });
  collective_try(comm, "transport", [&] {
    if (ranks > 1) transport = make_transport<V>(choice.kind, comm, plan.pattern, send_buf, ghost_buf);
    if (transport && transport->ghosts()) ghost_buf = transport->ghosts();
    if (long k = 0; watchdog::fault_injected(comm, k)) fault_stop_after = k;
  });
  if (transport) {
    auto* t = transport.get();
    watched = watchdog::registration({to_string(choice.kind), neighbour_ranks(plan.pattern),
                                      [t] { return t->failure(); }, [t] { t->abort(); }});
  }
}

template <typename V>
void distributed_matrix<V>::impl::fill_summaries() {
  summary.rank = rank;
  summary.rows = n_owned;
  summary.nnz = owned_nnz;
  summary.boundary_rows = static_cast<global_index_type>(plan.halo_rows.size());
  summary.interior_rows = summary.rows - summary.boundary_rows;
  summary.halo_nnz = plan.a_halo.nnz();
  summary.ghosts = static_cast<global_index_type>(plan.ghost_ids.size());
  summary.sends = plan.pattern.send_total();
  summary.neighbours = static_cast<int>(neighbour_ranks(plan.pattern).size());
  const auto sums = allreduce_sum({summary.halo_nnz, summary.ghosts}, comm);
  quality.method = options.partition == partitioner::automatic ? "block" : to_string(options.partition);
  quality.reason = options.partition != partitioner::automatic ? "requested" : ranks == 1 ? "one rank" : "";
  quality.order = to_string(in_place && !ordered_in_place ? row_order::none : order);
  quality.order_reason = order_reason;
  quality.edge_cut = sums[0];
  quality.halo_entries_total = sums[1];
  quality.halo_entries_max = allreduce_max(static_cast<std::int64_t>(summary.ghosts), comm);
  const auto max_nnz = allreduce_max(static_cast<std::int64_t>(summary.nnz), comm);
  const double mean = static_cast<double>(global_nnz) / ranks;
  quality.nnz_imbalance = mean > 0 ? static_cast<double>(max_nnz) / mean : 1.0;
}

// ---- queries ------------------------------------------------------------------------------------------

template <typename V>
global_index_type distributed_matrix<V>::global_rows() const { return impl_->global_rows; }
template <typename V>
global_index_type distributed_matrix<V>::first_row() const { return impl_->row_offsets[impl_->rank]; }
template <typename V>
global_index_type distributed_matrix<V>::local_rows() const { return impl_->summary.rows; }
template <typename V>
global_index_type distributed_matrix<V>::caller_first_row() const { return impl_->caller_first; }
template <typename V>
global_index_type distributed_matrix<V>::caller_rows() const { return impl_->caller_rows; }
template <typename V>
offset_type distributed_matrix<V>::caller_nnz() const { return impl_->caller_nnz; }
template <typename V>
offset_type distributed_matrix<V>::global_nnz() const { return impl_->global_nnz; }
template <typename V>
backend distributed_matrix<V>::where() const { return impl_->options.where; }
template <typename V>
MPI_Comm distributed_matrix<V>::comm() const { return impl_->comm; }
template <typename V>
int distributed_matrix<V>::rank() const { return impl_->rank; }
template <typename V>
int distributed_matrix<V>::ranks() const { return impl_->ranks; }
template <typename V>
std::vector<V> distributed_matrix<V>::diagonal() const { return impl_->diagonal; }
template <typename V>
transport_kind distributed_matrix<V>::transport() const { return impl_->choice.kind; }
template <typename V>
const std::string& distributed_matrix<V>::transport_reason() const { return impl_->choice.reason; }
template <typename V>
const rank_summary& distributed_matrix<V>::summary() const { return impl_->summary; }
template <typename V>
const partition_summary& distributed_matrix<V>::partition_quality() const { return impl_->quality; }
template <typename V>
const setup_times& distributed_matrix<V>::setup_seconds() const { return impl_->times; }
template <typename V>
const std::vector<rank_placement>& distributed_matrix<V>::placement() const { return impl_->placement; }
template <typename V>
const mpi_facts& distributed_matrix<V>::mpi() const { return impl_->mpi; }
template <typename V>
const std::vector<global_index_type>& distributed_matrix<V>::owned_caller_ids() const { return impl_->caller_ids; }

#define DSPMV_INSTANTIATE(V)                                                                  \
  template void distributed_matrix<V>::impl::choose_and_make_transport();                    \
  template void distributed_matrix<V>::impl::fill_summaries();                               \
  template global_index_type distributed_matrix<V>::global_rows() const;                     \
  template global_index_type distributed_matrix<V>::first_row() const;                       \
  template global_index_type distributed_matrix<V>::local_rows() const;                      \
  template global_index_type distributed_matrix<V>::caller_first_row() const;                \
  template global_index_type distributed_matrix<V>::caller_rows() const;                     \
  template offset_type distributed_matrix<V>::caller_nnz() const;                            \
  template offset_type distributed_matrix<V>::global_nnz() const;                            \
  template backend distributed_matrix<V>::where() const;                                     \
  template MPI_Comm distributed_matrix<V>::comm() const;                                     \
  template int distributed_matrix<V>::rank() const;                                          \
  template int distributed_matrix<V>::ranks() const;                                         \
  template std::vector<V> distributed_matrix<V>::diagonal() const;                           \
  template transport_kind distributed_matrix<V>::transport() const;                          \
  template const std::string& distributed_matrix<V>::transport_reason() const;               \
  template const rank_summary& distributed_matrix<V>::summary() const;                       \
  template const partition_summary& distributed_matrix<V>::partition_quality() const;        \
  template const setup_times& distributed_matrix<V>::setup_seconds() const;                  \
  template const std::vector<rank_placement>& distributed_matrix<V>::placement() const;      \
  template const mpi_facts& distributed_matrix<V>::mpi() const;                              \
  template const std::vector<global_index_type>& distributed_matrix<V>::owned_caller_ids() const;
DSPMV_INSTANTIATE(double)
DSPMV_INSTANTIATE(float)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv
