// Halo transports (DESIGN.md §5): move the packed send entries of x to the neighbours' ghost
// buffers. Buffers are fixed at construction (persistent MPI requests, NCCL peers); one exchange
// is begin() then end(), with the caller's local SpMV in between to overlap.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "dist/distributed_matrix.hpp"
#include "dist/gpu.hpp"
#include "dist/setup/halo_plan.hpp"

namespace distspmv::dist {

template <typename V>
class halo_transport {
 public:
  virtual ~halo_transport() = default;
  virtual transport_kind kind() const = 0;
  /// Starts the exchange of `send` (pattern.send_total() entries) into `recv`. Device transports
  /// order their work after what is already on `stream`; the host transport starts the requests.
  virtual void begin(cuda_stream_t stream) = 0;
  /// True where the transport packs x's send entries itself (peer-put stores them straight into
  /// the neighbours' ghost buffers): the caller then calls begin_from() instead of packing into
  /// the send buffer and calling begin().
  virtual bool gathers() const { return false; }
  virtual void begin_from(const V* /*x*/, const index_type* /*send_idx*/, cuda_stream_t stream) { begin(stream); }
  /// Where the transport's ghosts land, where it owns that memory (nvshmem: the symmetric heap,
  /// which its neighbours write into); the halo product then reads them there. Null where they
  /// land in the `recv` given at construction.
  virtual V* ghosts() { return nullptr; }
  /// Finishes it: host transports return with `recv` filled; device transports return once the
  /// remaining work is enqueued on `stream` (the caller waits on it with an event).
  virtual void end(cuda_stream_t stream) = 0;
  /// Transports whose ghosts arrive with flags raised by the senders' GPUs (peer-put): the flags,
  /// which the kernel that reads the ghosts waits on itself (end() enqueues nothing). Null where
  /// `recv` is complete once end()'s work on the stream is.
  virtual const gpu::ready_flags* ready_flags() const { return nullptr; }
  /// Called once this exchange's ghosts have been read, on the stream that read them: peer-put
  /// tells its senders they may overwrite them. True where it enqueued work (the caller joins it).
  virtual bool release(cuda_stream_t /*stream*/) { return false; }
  /// True where begin() and end() only enqueue GPU work (no host wait, no MPI call), so that an
  /// apply's exchange can be captured into a CUDA graph (matrix_options::cuda_graphs).
  virtual bool capturable() const { return false; }
  /// An asynchronous failure of the transport (NCCL's), polled by the halo watchdog while the
  /// rank waits (dist/watchdog.hpp); empty while healthy.
  virtual std::string failure() { return {}; }
  /// Stops the transport before the watchdog aborts the job (ncclCommAbort); nothing by default.
  virtual void abort() {}
};

/// Facts the automatic choice looks at (diagnostics.hpp gathers them).
struct transport_context {
  backend where = backend::host;
  int ranks = 1;
  bool gpu_shared = false;    ///< two ranks of one node use the same GPU
  bool single_node = true;    ///< every rank runs on the same host (CUDA IPC reaches only those)
  bool nccl_compiled = false;
  bool nvshmem_compiled = false;
  bool mpi_cuda_aware = false;
  double mean_nnz_per_rank = 0;  ///< the matrix's nonzeros over the ranks
  double halo_fraction = 0;      ///< nonzeros in ghost columns over all nonzeros (the cut)
};

/// One host, one GPU per rank: cuda-ipc (copy engines, nothing on the SMs, but 30-50 us of host
/// handshake per exchange) where the halo hides under a long local SpMV, peer-put elsewhere
/// (issue 36, 4x H100, jobs/results/2026-11-27_h100x4_exchange). cuda-ipc against peer-put, apply
/// at 4 ranks: stencil27:200 (53 M nonzeros a rank, cut 1%) 175.5 against 189.0 us; poisson3d:317
/// (56 M, 0.3%) 219.0 against 233.3; lognormal (12 M, 11%) 139.1 against 155.9; but rmat:22:16
/// (16 M, cut 75%: the halo block waits for the exchange) 239.5 against 211.9, and below a few
/// million nonzeros a rank 45-58 against 21-27 (poisson3d:32, soc-Slashdot0902).
constexpr double ipc_min_nnz_per_rank = 1 << 23;
constexpr double ipc_max_halo_fraction = 0.25;

struct transport_choice {
  transport_kind kind = transport_kind::mpi_host;
  std::string reason;
};

/// `requested` == automatic picks per DESIGN.md §5; otherwise checks the request is possible and
/// throws bad_input naming --transport when it is not (e.g. nccl on the host backend).
transport_choice choose_transport(transport_kind requested, const transport_context& context);

/// Builds the transport over fixed buffers (host memory for mpi_host, device memory otherwise).
template <typename V>
std::unique_ptr<halo_transport<V>> make_transport(transport_kind kind, MPI_Comm comm, const halo_pattern& pattern,
                                                  const V* send, V* recv);

// Implemented in the backend files; make_transport dispatches to them.
template <typename V>
std::unique_ptr<halo_transport<V>> make_mpi_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                      V* recv, bool device_buffers);
template <typename V>
std::unique_ptr<halo_transport<V>> make_staged_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                         V* recv);
template <typename V>
std::unique_ptr<halo_transport<V>> make_ipc_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                      V* recv);
/// peer-put writes into `recv` from the neighbours' GPUs: `recv` must start its own cudaMalloc
/// allocation (CUDA IPC exports whole allocations).
template <typename V>
std::unique_ptr<halo_transport<V>> make_peer_put_transport(MPI_Comm comm, const halo_pattern& pattern, V* recv);
/// nvshmem packs into, and receives in, symmetric memory of its own (ghosts()).
template <typename V>
std::unique_ptr<halo_transport<V>> make_nvshmem_transport(MPI_Comm comm, const halo_pattern& pattern);
template <typename V>
std::unique_ptr<halo_transport<V>> make_nccl_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                       V* recv);

}  // namespace distspmv::dist
