// The CUDA pieces dist/ needs, behind a plain C++ interface: streams, events, copies, pointer
// queries and the two small kernels of the apply (packing x's send entries, and the halo product
// on the boundary rows). halo_cuda.cu implements it; cuda_stubs.cpp throws not_compiled.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "common/types.hpp"

struct CUevent_st;
struct CUgraphExec_st;

namespace distspmv::dist::gpu {

using event_t = ::CUevent_st*;

/// Owning stream (non-blocking) and event (timing disabled), released on destruction.
struct stream_deleter {
  void operator()(CUstream_st* s) const noexcept;
};
struct event_deleter {
  void operator()(CUevent_st* e) const noexcept;
};
using stream_ptr = std::unique_ptr<CUstream_st, stream_deleter>;
using event_ptr = std::unique_ptr<CUevent_st, event_deleter>;
/// A non-blocking stream; `high_priority` puts its blocks ahead of other streams' (the halo
/// exchange must not queue behind the local SpMV).
stream_ptr make_stream(bool high_priority = false);
/// Events for ordering only (timing disabled), or for timing with elapsed_ms.
event_ptr make_event(bool timing = false);
float elapsed_ms(event_t start, event_t stop);

void record(event_t e, cuda_stream_t s);
void wait(cuda_stream_t s, event_t e);
/// True once everything enqueued on `s` has finished (cudaStreamQuery).
bool query(cuda_stream_t s);
/// Waits for `s` under the halo watchdog (dist/watchdog.hpp): past DISTSPMV_HALO_TIMEOUT, or on a
/// transport's failure, the rank reports and aborts the job instead of waiting for ever.
void synchronize(cuda_stream_t s);

/// CUDA graphs of the apply (matrix_options::cuda_graphs): the work a function enqueues on a
/// stream (and on the streams that wait on it) captured once and launched again as one graph.
struct graph_deleter {
  void operator()(CUgraphExec_st* g) const noexcept;
};
using graph_ptr = std::unique_ptr<CUgraphExec_st, graph_deleter>;
/// Runs enqueue() under stream capture of `s` (thread-local mode: other threads' CUDA calls are
/// not affected) and instantiates what it enqueued; nothing runs. Returns null, with CUDA's error
/// state cleared, where the work cannot be captured (a synchronisation, an MPI wait on the host)
/// or enqueue() throws; then the caller enqueues it the usual way.
graph_ptr capture(cuda_stream_t s, const std::function<void()>& enqueue);
void launch(CUgraphExec_st* g, cuda_stream_t s);

/// Device and pinned host memory, released by the deleters.
struct device_deleter {
  void operator()(void* p) const noexcept;
};
struct pinned_deleter {
  void operator()(void* p) const noexcept;
};
using device_ptr = std::unique_ptr<void, device_deleter>;
using pinned_ptr = std::unique_ptr<void, pinned_deleter>;
device_ptr allocate_device(std::size_t bytes);
pinned_ptr allocate_pinned(std::size_t bytes);

/// cudaMemcpyAsync with the direction inferred from the pointers.
void copy_async(void* dst, const void* src, std::size_t bytes, cuda_stream_t s);
/// True for device (or managed) memory; false for host memory, pinned or not.
bool is_device_pointer(const void* p);

int device_count();
int current_device();
/// Streaming multiprocessors of the current GPU.
int multiprocessors();
void set_device(int device);
/// "NVIDIA H200 (0000:1B:00.0)".
std::string device_description(int device);

/// out[k] = x[idx[k]] for k < n.
template <typename V>
void gather(const V* x, const index_type* idx, offset_type n, V* out, cuda_stream_t s);

/// y[rows[i]] += t[i] for i < n (the halo block's compressed rows into y).
template <typename V>
void scatter_add(const V* t, const index_type* rows, global_index_type n, V* y, cuda_stream_t s);

/// The halo block A_halo (boundary rows x ghosts) as plain device CSR, for halo_product.
template <typename V>
struct halo_csr {
  global_index_type rows = 0;
  const offset_type* row_ptr = nullptr;
  const index_type* col_idx = nullptr;
  const V* values = nullptr;
};

/// Where a spin on a flag gave up (pinned host memory the GPU writes): the host watchdog reads it.
struct spin_note {
  enum : int { ack = 1, ready = 2 };
  int timed_out = 0;   ///< 1 once a spin gave up
  int neighbour = -1;  ///< index of the neighbour waited for, in the transport's lists
  int what = 0;        ///< ack: a receiver had not consumed the previous halo; ready: a sender's halo missing
};

/// Flags the GPU waits on before it reads the ghosts, where the transport signals from the GPU
/// (peer-put): ready[j] > *consumed (the exchanges whose ghosts were read so far) for every sender
/// j < n. The consumer waits in its own kernel (halo_product) or in wait_ready's.
struct ready_flags {
  const unsigned long long* ready = nullptr;
  const unsigned long long* consumed = nullptr;
  int n = 0;
  long long timeout_ns = 0;  ///< 0: wait for ever
  spin_note* note = nullptr;
};

/// One warp that waits on `w` (for halo blocks in a format of their own).
void wait_ready(const ready_flags& w, cuda_stream_t s);

/// t[i] = alpha * (A_halo * ghosts)_i for every row i of A_halo, one thread per row: for halo rows
/// of a few entries (meshes), on the comm stream while the local SpMV runs. With `wait`, each
/// block first waits on the flags (no kernel of its own for the wait).
template <typename V>
void halo_product(const halo_csr<V>& a, V alpha, const V* ghosts, V* t, cuda_stream_t s,
                  const ready_flags* wait = nullptr);

}  // namespace distspmv::dist::gpu
