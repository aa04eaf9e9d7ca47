// The overlapped apply of a distributed matrix (DESIGN.md §1): the local SpMV on the caller's
// stream while the halo of x travels, the halo block's product, the scatter into y; CUDA graphs of
// repeated applies; the timed pieces of the report; vector moves between the two layouts.
#include <algorithm>
#include <string>

#include "dist/matrix_impl.hpp"

namespace distspmv {

/// halo_t = alpha * A_halo * ghosts (boundary rows only), after `wait`'s flags where the
/// transport signals from the GPU (peer-put): the plain halo kernel waits itself, a halo block of
/// another format behind one warp that waits.
template <typename V>
void distributed_matrix<V>::impl::halo_multiply(V alpha, cuda_stream_t stream, const gpu::ready_flags* wait) {
  if (short_halo.rows > 0) {
    gpu::halo_product(short_halo, alpha, ghost_buf, halo_t, stream, wait);
    return;
  }
  if (wait) gpu::wait_ready(*wait, stream);
  if (halo) halo->apply(alpha, ghost_buf, V(0), halo_t, stream);
}

/// y[boundary rows] += halo_t.
template <typename V>
void distributed_matrix<V>::impl::halo_finish(V* y, cuda_stream_t stream) {
  if (short_halo.rows == 0 && !halo) return;
  const global_index_type n = short_halo.rows > 0 ? short_halo.rows : halo->rows();
  if (cuda())
    gpu::scatter_add(halo_t, halo_rows, n, y, stream);
  else
    host::scatter_add(halo_t, halo_rows, n, y);
}

/// `s` (the comm or put stream) waits for start_event (recorded on the caller's stream where x is
/// ready) and for the previous apply's use of the buffers, which may have been on another stream of
/// the caller's.
template <typename V>
void distributed_matrix<V>::impl::follow_caller(cuda_stream_t s) {
  gpu::wait(s, start_event.get());
  // The previous apply's end; a captured apply needs none (launch_graph orders the graph after it),
  // and may wait only on events recorded in its capture.
  if (!capturing) gpu::wait(s, done_event.get());
}

/// Enqueues the packing: on the comm stream, or for a transport that packs itself and signals from
/// the GPU (peer-put) on the put stream, which `join_put` joins at the end.
template <typename V>
void distributed_matrix<V>::impl::pack_device(const V* x) {
  follow_caller(comm_stream.get());
  if (transport->gathers()) {
    follow_caller(put_stream.get());
    transport->begin_from(x, send_idx, put_stream.get());
    gpu::record(put_event.get(), put_stream.get());
  } else {
    gpu::gather(x, send_idx, plan.pattern.send_total(), send_buf, comm_stream.get());
  }
}

/// Enqueues the exchange of what pack_device packed (the host's part of it, for the transports
/// that have one).
template <typename V>
void distributed_matrix<V>::impl::send_device() {
  if (!transport->gathers()) transport->begin(comm_stream.get());
  transport->end(comm_stream.get());
}

/// `stream` waits for the put stream's packing (peer-put), so that the apply ends after it.
template <typename V>
void distributed_matrix<V>::impl::join_put(cuda_stream_t stream) {
  if (transport->gathers()) gpu::wait(stream, put_event.get());
}

/// `stream` waits for what is enqueued on the comm stream.
template <typename V>
void distributed_matrix<V>::impl::join_exchange(cuda_stream_t stream) {
  gpu::record(halo_event.get(), comm_stream.get());
  gpu::wait(stream, halo_event.get());
}

template <typename V>
void distributed_matrix<V>::impl::apply_device(V alpha, const V* x, V beta, V* y, cuda_stream_t stream,
                                               bool exchange) {
  // In a CUDA graph (peer-put, nccl) the packing kernel comes first, so that its blocks have SM
  // slots before the local SpMV's fill the GPU and the halo leaves as early as it can (2 GPUs,
  // peer-put: gen:poisson3d:32 17.9 -> 14.0 us, soc-Slashdot0902 21.6 -> 20.1 us;
  // jobs/results/2026-11-28_h200x2_halo_order, run 3). Eagerly the local SpMV is launched first,
  // so that the GPU is busy while the host enqueues the exchange: packing first cost 5-7 us of host
  // time before the local SpMV (stencil27:200 on 2 GPUs over cuda-ipc: 250.0 -> 256.8 us, run 2;
  // lognormal, local block in panel, 181.2 -> 188.1 us, run 3), and ncclGroupEnd takes 26-43 us of
  // host time on 4x H200 (the staged transport also waits for MPI here): enqueued before the local
  // SpMV (revisions up to cb5b7ba) that host time ran on an idle GPU, overlap efficiency 0.2-0.45
  // with NCCL, then 0.86-1.04 (jobs/results/2026-11-22_h200x4_dist_run3). The comm stream has high
  // priority, so packing, NCCL and the halo block's product are scheduled ahead of the local
  // SpMV's remaining blocks; after the local SpMV only the scatter of the boundary rows into y is
  // left. Without the exchange (apply_local_only) the halo block's product still runs beside the
  // local SpMV, so that "local" times what the apply costs apart from the exchange.
  const bool comm = exchange && exchanges();
  if (!comm && short_halo.rows == 0 && !halo) {
    local->apply(alpha, x, beta, y, stream);
    return;
  }
  const bool pack_first = comm && capturing;
  gpu::record(start_event.get(), stream);
  if (pack_first) pack_device(x);
  local->apply(alpha, x, beta, y, stream);
  if (!comm)
    follow_caller(comm_stream.get());
  else if (!pack_first)
    pack_device(x);
  if (comm) send_device();
  halo_multiply(alpha, comm_stream.get(), comm ? transport->ready_flags() : nullptr);
  join_exchange(stream);
  halo_finish(y, stream);
  // The ghosts are read: peer-put tells its senders, beside the scatter, and the apply ends after.
  if (comm && transport->release(comm_stream.get())) join_exchange(stream);
  if (comm) join_put(stream);
  if (!capturing) gpu::record(done_event.get(), stream);  // a graph's is recorded at its launch
}

/// Why the applies do or do not run as CUDA graphs ("on", or "off: why"), for the report.
template <typename V>
std::string distributed_matrix<V>::impl::graphs_state() const {
  if (graphs_on()) return "on";
  if (!cuda()) return "off: host backend";
  if (!options.cuda_graphs) return "off: requested";
  if (graphs_refused) return "off: the apply could not be captured";
  return "off: the " + std::string(to_string(choice.kind)) + " exchange waits on the host (peer-put, nvshmem and nccl can be captured)";
}

/// The apply as a CUDA graph (matrix_options::cuda_graphs): an apply whose key repeats the previous
/// apply's is captured on capture_stream (nothing runs) and launched on `stream` from then on.
/// False where the apply is to run eagerly: the key's first sighting, graphs off, or a capture that
/// failed (then never again: the failure would repeat). Every rank meets the same keys in the same
/// order (the SPMD contract of matrix_options::cuda_graphs), so the ranks capture and launch their
/// exchanges together, as NCCL requires; a capture fails alike on every rank (the same code).
template <typename V>
bool distributed_matrix<V>::impl::launch_graph(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (!graphs_on()) return false;
  const graph_key key{x, y, alpha, beta};
  auto hit = std::find_if(graphs.begin(), graphs.end(), [&](const auto& g) { return g.first == key; });
  if (hit == graphs.end()) {
    const bool repeated = last_key && *last_key == key;
    last_key = key;
    if (!repeated) return false;
    if (!capture_stream) capture_stream = gpu::make_stream();
    capturing = true;
    auto exec = gpu::capture(capture_stream.get(),
                             [&] { apply_device(alpha, x, beta, y, capture_stream.get(), true); });
    capturing = false;
    if (!exec) {
      graphs_refused = true;
      forget_graphs();
      return false;
    }
    if (graphs.size() == max_graphs) graphs.pop_back();
    graphs.emplace(graphs.begin(), key, std::move(exec));
    hit = graphs.begin();
  }
  std::rotate(graphs.begin(), hit, hit + 1);  // most recently used first
  gpu::wait(stream, done_event.get());        // the previous apply, wherever it was enqueued
  gpu::launch(graphs.front().second.get(), stream);
  gpu::record(done_event.get(), stream);
  ++graph_launches;
  return true;
}

template <typename V>
void distributed_matrix<V>::impl::exchange_host_begin(const V* x) {
  host::gather(x, send_idx, plan.pattern.send_total(), send_buf);
  transport->begin(nullptr);
}

template <typename V>
void distributed_matrix<V>::impl::apply_host(V alpha, const V* x, V beta, V* y, bool exchange) {
  const bool comm = exchange && exchanges();
  if (comm) exchange_host_begin(x);
  local->apply(alpha, x, beta, y);  // overlaps the messages in flight
  if (comm) transport->end(nullptr);
  halo_multiply(alpha, nullptr);
  halo_finish(y, nullptr);
}

// ---- apply ------------------------------------------------------------------------------------------

template <typename V>
void distributed_matrix<V>::apply(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  auto& m = *impl_;
  const auto n = static_cast<std::size_t>(m.summary.rows);
  DSPMV_REQUIRE(n == 0 || (x != nullptr && y != nullptr), "distributed_matrix::apply: x or y is a null pointer");
  if (m.fault_stop_after >= 0 && m.applies++ == m.fault_stop_after) watchdog::stop_here(m.rank, m.fault_stop_after);
  if (!m.cuda()) {
    m.apply_host(alpha, x, beta, y, true);
    return;
  }
  const bool x_dev = gpu::is_device_pointer(x), y_dev = gpu::is_device_pointer(y);
  if ((x_dev || n == 0) && (y_dev || n == 0)) {
    if (!m.launch_graph(alpha, x, beta, y, stream)) m.apply_device(alpha, x, beta, y, stream, true);
    return;
  }
  // Host vectors on the CUDA backend: stage through buffers made once.
  if (!m.stage_x) {
    m.stage_x = gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(V));
    m.stage_y = gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(V));
  }
  V* dx = x_dev ? const_cast<V*>(x) : static_cast<V*>(m.stage_x.get());
  V* dy = y_dev ? y : static_cast<V*>(m.stage_y.get());
  if (!x_dev) gpu::copy_async(dx, x, n * sizeof(V), stream);
  if (!y_dev && beta != V(0)) gpu::copy_async(dy, y, n * sizeof(V), stream);
  if (!m.launch_graph(alpha, dx, beta, dy, stream)) m.apply_device(alpha, dx, beta, dy, stream, true);
  if (!y_dev) gpu::copy_async(y, dy, n * sizeof(V), stream);
  gpu::synchronize(stream);
}

template <typename V>
void distributed_matrix<V>::apply_local_only(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  auto& m = *impl_;
  if (m.cuda())
    m.apply_device(alpha, x, beta, y, stream, false);
  else
    m.apply_host(alpha, x, beta, y, false);
}

template <typename V>
std::string distributed_matrix<V>::cuda_graphs() const {
  return impl_->graphs_state();
}

template <typename V>
long distributed_matrix<V>::graph_launches() const {
  return impl_->graph_launches;
}

template <typename V>
void distributed_matrix<V>::exchange_only(const V* x, cuda_stream_t stream) {
  auto& m = *impl_;
  if (!m.exchanges()) return;
  if (m.cuda()) {
    gpu::record(m.start_event.get(), stream);
    m.pack_device(x);
    m.send_device();
    if (const auto* wait = m.transport->ready_flags()) gpu::wait_ready(*wait, m.comm_stream.get());
    m.transport->release(m.comm_stream.get());
    m.join_exchange(stream);
    m.join_put(stream);
  } else {
    m.exchange_host_begin(x);
    m.transport->end(nullptr);
  }
}

// ---- layouts and values ------------------------------------------------------------------------------

template <typename V>
void distributed_matrix<V>::to_partitioned(const V* caller, V* partitioned) const {
  rows_to_partitioned(impl_->map, caller, partitioned, impl_->comm);
}

template <typename V>
void distributed_matrix<V>::from_partitioned(const V* partitioned, V* caller) const {
  rows_from_partitioned(impl_->map, partitioned, caller, impl_->comm);
}

#define DSPMV_INSTANTIATE(V)                                                                     \
  template void distributed_matrix<V>::apply(V, const V*, V, V*, cuda_stream_t);                 \
  template void distributed_matrix<V>::apply_local_only(V, const V*, V, V*, cuda_stream_t);      \
  template void distributed_matrix<V>::exchange_only(const V*, cuda_stream_t);                  \
  template std::string distributed_matrix<V>::cuda_graphs() const;                              \
  template long distributed_matrix<V>::graph_launches() const;                                  \
  template void distributed_matrix<V>::to_partitioned(const V*, V*) const;                      \
  template void distributed_matrix<V>::from_partitioned(const V*, V*) const;
DSPMV_INSTANTIATE(double)
DSPMV_INSTANTIATE(float)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv
