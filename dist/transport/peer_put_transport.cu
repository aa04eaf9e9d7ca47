// peer-put: the GPUs of one host exchange the halo without the host (issue 36, DESIGN.md §5).
// Each rank maps its neighbours' ghost buffers and a small array of flags of theirs through CUDA
// IPC once, at setup. Per exchange the sender's packing kernel stores x[send_idx] straight into
// each receiver's ghost buffer (over NVLink where the GPUs have it) and then raises the
// receiver's "ready" flag; the receiver's halo kernel waits on the flag itself before it reads the
// ghosts (gpu::halo_product, or gpu::wait_ready before a halo block of its own format). Everything
// is a kernel, so the whole apply is captured into one CUDA graph, and no host thread takes part:
// the floor is NVLink's latency, not a message between processes (cuda-ipc's host handshake floors
// at 29-33 us on 2 GPUs and 44-50 at 4, NCCL with a graph at 20 on 2;
// jobs/results/2026-11-26_h200x2_transport, issue 36).
//
// Flags are 64-bit exchange numbers that only grow, so a graph replays without resetting them:
//   * every rank counts on the GPU the exchanges it packed (epoch, bumped by the packing kernel)
//     and those whose ghosts it read (consumed, bumped by release());
//   * ready[j] (written by sender j) = the last exchange whose entries are in the ghost buffer;
//   * ack[i] (written by receiver i) = the last exchange whose ghosts receiver i has consumed.
// The packing runs on a stream of its own (the caller's put stream), so that the receiving kernel,
// which waits for ready[j] > consumed, is already spinning when the flags rise.
// Exchange e: the packing kernel waits until each receiver has consumed e - 1 (so that no ghost it
// still reads is overwritten), stores, fences at system scope and, in its last block, raises
// ready = e at every receiver. The receiver's kernel spins until ready[j] >= e for every sender j;
// after its halo product, release() raises ack = e at every sender, beside the scatter into y, so
// that the next exchange's sender finds it raised and does not wait for this rank's next apply to
// start. Ranks apply collectively, so their counts agree.
//
// A neighbour that stops applying would leave a kernel spinning: every spin gives up after twice
// DISTSPMV_HALO_TIMEOUT seconds (GPU clock; the host's watchdog reports first) and leaves a note
// in pinned host memory, which the halo watchdog reads (failure()) and the next exchange checks,
// naming the neighbour.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/gpu.hpp"
#include "dist/transport/device_flags.cuh"
#include "dist/transport/ipc_setup.hpp"
#include "dist/transport/transport.hpp"
#include "dist/watchdog.hpp"
#include "local_kernels/device_storage.hpp"

namespace distspmv::dist {
namespace {

using gpu::flags::flag_t;
using gpu::spin_note;

constexpr int tag_receiver = 7310, tag_sender = 7311;
constexpr int pack_block = 256;

/// What a receiver tells each of its senders at setup: where to put its entries and its flag.
struct receiver_info {
  cudaIpcMemHandle_t ghosts;  ///< the receiver's ghost buffer
  cudaIpcMemHandle_t flags;   ///< the receiver's flag array
  std::int64_t offset = 0;    ///< of the sender's entries in the ghost buffer
  std::int64_t count = 0;
  std::int64_t ready_slot = 0;  ///< the sender's ready flag in the receiver's flags
  std::int32_t ok = 0;
};
/// What a sender tells each of its receivers: where to acknowledge.
struct sender_info {
  cudaIpcMemHandle_t flags;
  std::int64_t ack_slot = 0;
  std::int32_t ok = 0;
};

/// The kernels' view of the transport (trivially copyable, passed by value).
template <typename V>
struct put_params {
  const offset_type* send_offsets;  ///< n_receivers + 1, into send_idx
  V* const* destinations;           ///< per receiver: where its entries go in its ghost buffer
  flag_t* const* remote_ready;      ///< per receiver: this rank's ready flag there
  flag_t* const* remote_ack;        ///< per sender: this rank's ack flag there
  const flag_t* ready;              ///< n_senders, written by the senders
  const flag_t* ack;                ///< n_receivers, written by the receivers
  flag_t* epoch;                    ///< exchanges this rank has packed
  unsigned* blocks_done;            ///< the packing kernel's completion count
  flag_t* consumed;                 ///< exchanges whose ghosts this rank has read (release_kernel)
  int n_receivers, n_senders;
  long long timeout_ns;             ///< 0: spin for ever
  spin_note* note;
};

/// Exchange e = epoch + 1: wait until every receiver has consumed e - 1 (its release kernel, at
/// the end of its previous apply), store x[send_idx] into the receivers' ghost buffers, and
/// (last block) raise their ready flags to e.
template <typename V>
__global__ void __launch_bounds__(pack_block) pack_put_kernel(put_params<V> p, const V* __restrict__ x,
                                                              const index_type* __restrict__ send_idx) {
  __shared__ flag_t e;
  __shared__ bool go;
  if (threadIdx.x == 0) {
    e = *p.epoch + 1;  // written by the previous exchange's kernel, earlier on this stream
    go = true;
    for (int i = 0; i < p.n_receivers && go; ++i)
      go = gpu::flags::spin_until(p.ack + i, e - 1, p.timeout_ns, p.note, i, spin_note::ack);
  }
  __syncthreads();
  if (go) {
    const offset_type n = p.send_offsets[p.n_receivers];
    for (offset_type k = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x; k < n;
         k += static_cast<offset_type>(gridDim.x) * blockDim.x) {
      int r = 0;  // the receiver of entry k: few neighbours, a linear scan of cached offsets
      while (p.send_offsets[r + 1] <= k) ++r;
      p.destinations[r][k - p.send_offsets[r]] = x[send_idx[k]];
    }
    __threadfence_system();  // this thread's stores reach the receivers before any flag below
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (atomicAdd(p.blocks_done, 1u) == gridDim.x - 1) {  // the last block
      __threadfence_system();
      if (go)
        for (int i = 0; i < p.n_receivers; ++i) gpu::flags::store_release(p.remote_ready[i], e);
      *p.blocks_done = 0;
      *p.epoch = e;
    }
  }
}

/// This exchange's ghosts are read: each sender may overwrite them (ack = consumed + 1). One warp.
template <typename V>
__global__ void release_kernel(put_params<V> p) {
  const flag_t e = *p.consumed + 1;
  __syncwarp();
  for (int j = threadIdx.x; j < p.n_senders; j += blockDim.x) gpu::flags::store_release(p.remote_ack[j], e);
  if (threadIdx.x == 0) *p.consumed = e;
}

gpu::device_ptr upload(const void* host, std::size_t bytes) {
  auto d = gpu::allocate_device(bytes);
  copy_to_device(d.get(), host, bytes);  // landed on return (device_storage.hpp)
  return d;
}

struct pinned_note_deleter {
  void operator()(spin_note* p) const noexcept { cudaFreeHost(p); }
};

[[noreturn]] void fail(const std::string& what) { throw error("peer-put transport: " + what, __FILE__, __LINE__); }

template <typename V>
class peer_put_transport final : public halo_transport<V> {
 public:
  peer_put_transport(MPI_Comm comm, const halo_pattern& pattern, V* recv) : comm_(comm), pattern_(pattern) {
    const std::size_t n_receivers = pattern.send_ranks.size(), n_senders = pattern.recv_ranks.size();
    // Flags: ready[n_senders], ack[n_receivers], epoch, blocks_done (as a 64-bit word), consumed.
    const std::size_t n_flags = n_senders + n_receivers + 3;
    // 1. This rank's buffers and handles. A failure is held until every setup message has gone
    //    both ways, so that no neighbour is left waiting; the caller then agrees on errors.
    std::exception_ptr failure;
    cudaIpcMemHandle_t ghost_handle{}, flag_handle{};
    try {
      flags_ = gpu::allocate_device(n_flags * sizeof(flag_t));
      // Zeroed before any neighbour learns the address: a memset still queued could overwrite
      // a neighbour's first flag.
      DSPMV_CUDA_CHECK(cudaMemset(flags_.get(), 0, n_flags * sizeof(flag_t)));
      DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      DSPMV_CUDA_CHECK(cudaIpcGetMemHandle(&flag_handle, flags_.get()));
      if (n_senders > 0) DSPMV_CUDA_CHECK(cudaIpcGetMemHandle(&ghost_handle, recv));
      spin_note* note = nullptr;
      DSPMV_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&note), sizeof(spin_note), cudaHostAllocMapped));
      note_.reset(note);
      *note = spin_note{};
      sms_ = gpu::multiprocessors();
    } catch (...) {
      failure = std::current_exception();
    }
    const std::int32_t ok = failure ? 0 : 1;
    // 2. Tell each sender where to put its entries, each receiver where to acknowledge.
    std::vector<receiver_info> to_senders(n_senders), from_receivers(n_receivers);
    std::vector<sender_info> to_receivers(n_receivers), from_senders(n_senders);
    setup_messages messages(comm_);
    for (std::size_t j = 0; j < n_senders; ++j) {
      const auto count = pattern.recv_offsets[j + 1] - pattern.recv_offsets[j];
      to_senders[j] = {ghost_handle, flag_handle, pattern.recv_offsets[j], count, static_cast<std::int64_t>(j), ok};
      messages.send(to_senders[j], pattern.recv_ranks[j], tag_receiver);
      messages.receive(from_senders[j], pattern.recv_ranks[j], tag_sender);
    }
    for (std::size_t i = 0; i < n_receivers; ++i) {
      to_receivers[i] = {flag_handle, static_cast<std::int64_t>(n_senders + i), ok};
      messages.send(to_receivers[i], pattern.send_ranks[i], tag_sender);
      messages.receive(from_receivers[i], pattern.send_ranks[i], tag_receiver);
    }
    messages.wait("peer-put");
    if (failure) std::rethrow_exception(failure);

    // 3. Map what the neighbours exported: each neighbour's flags once, ghost buffers once.
    std::vector<V*> destinations(n_receivers);
    std::vector<flag_t*> remote_ready(n_receivers), remote_ack(n_senders);
    for (std::size_t i = 0; i < n_receivers; ++i) {
      const int peer = pattern.send_ranks[i];
      const auto& r = from_receivers[i];
      if (!r.ok) fail("rank " + std::to_string(peer) + " could not export its buffers");
      const auto expected = pattern.send_offsets[i + 1] - pattern.send_offsets[i];
      if (r.count != expected)
        fail("rank " + std::to_string(peer) + " expects " + std::to_string(r.count) + " entries, this rank sends " +
             std::to_string(expected));
      destinations[i] = static_cast<V*>(open(ghosts_of_, peer, r.ghosts)) + r.offset;
      remote_ready[i] = static_cast<flag_t*>(open(flags_of_, peer, r.flags)) + r.ready_slot;
    }
    for (std::size_t j = 0; j < n_senders; ++j) {
      const int peer = pattern.recv_ranks[j];
      if (!from_senders[j].ok) fail("rank " + std::to_string(peer) + " could not export its flags");
      remote_ack[j] = static_cast<flag_t*>(open(flags_of_, peer, from_senders[j].flags)) + from_senders[j].ack_slot;
    }

    send_offsets_ = upload(pattern.send_offsets.data(), pattern.send_offsets.size() * sizeof(offset_type));
    destinations_ = upload(destinations.data(), n_receivers * sizeof(V*));
    remote_ready_ = upload(remote_ready.data(), n_receivers * sizeof(flag_t*));
    remote_ack_ = upload(remote_ack.data(), n_senders * sizeof(flag_t*));
    auto* flags = static_cast<flag_t*>(flags_.get());
    spin_note* device_note = nullptr;
    DSPMV_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_note), note_.get(), 0));
    // The host watchdog reports a neighbour that stopped (DISTSPMV_HALO_TIMEOUT); the GPU's own
    // bound, twice that and a second, only keeps a kernel from spinning for ever where no host
    // waits (a solver that never synchronises): the next exchange then reports it.
    const double timeout = 2 * watchdog::timeout_seconds() + (watchdog::timeout_seconds() > 0 ? 1 : 0);
    params_ = {static_cast<const offset_type*>(send_offsets_.get()),
               static_cast<V* const*>(destinations_.get()),
               static_cast<flag_t* const*>(remote_ready_.get()),
               static_cast<flag_t* const*>(remote_ack_.get()),
               flags,
               flags + n_senders,
               flags + n_senders + n_receivers,
               reinterpret_cast<unsigned*>(flags + n_senders + n_receivers + 1),
               flags + n_senders + n_receivers + 2,
               static_cast<int>(n_receivers),
               static_cast<int>(n_senders),
               static_cast<long long>(timeout * 1e9),
               device_note};
    ready_ = {params_.ready, params_.consumed, params_.n_senders, params_.timeout_ns, device_note};
  }

  transport_kind kind() const override { return transport_kind::peer_put; }
  bool capturable() const override { return true; }
  bool gathers() const override { return true; }

  void begin_from(const V* x, const index_type* send_idx, cuda_stream_t stream) override {
    check_note();  // a spin that gave up in an earlier exchange: this one would be wrong
    const offset_type n = pattern_.send_total();
    // Its blocks spin until the receivers have read the previous halo: at most two per SM, so that
    // spinning blocks never hold the slots that this GPU's own halo kernels need.
    const offset_type blocks = std::clamp<offset_type>((n + pack_block - 1) / pack_block, 1, 2 * offset_type{sms_});
    pack_put_kernel<V><<<static_cast<unsigned>(blocks), pack_block, 0, stream>>>(params_, x, send_idx);
    DSPMV_CUDA_CHECK_LAUNCH(stream);
  }
  void begin(cuda_stream_t) override { fail("begin() without x: this transport packs itself (begin_from)"); }

  /// The ghosts' consumer waits on ready_flags() in its own kernel: nothing to enqueue here.
  void end(cuda_stream_t) override {}
  const gpu::ready_flags* ready_flags() const override { return &ready_; }

  bool release(cuda_stream_t stream) override {
    if (params_.n_senders == 0) return false;
    release_kernel<V><<<1, 32, 0, stream>>>(params_);
    DSPMV_CUDA_CHECK_LAUNCH(stream);
    return true;
  }

  std::string failure() override {
    const volatile spin_note* n = note_.get();
    if (!n->timed_out) return {};
    const bool ack = n->what == spin_note::ack;
    const auto& ranks = ack ? pattern_.send_ranks : pattern_.recv_ranks;
    const int k = n->neighbour;
    const int peer = k >= 0 && k < static_cast<int>(ranks.size()) ? ranks[k] : -1;
    return "the GPU waited more than twice DISTSPMV_HALO_TIMEOUT for rank " + std::to_string(peer) +
           (ack ? " to consume the previous halo" : " to put this exchange's halo");
  }

 private:
  void check_note() {
    if (const std::string f = failure(); !f.empty()) {
      int rank = 0;
      MPI_Comm_rank(comm_, &rank);
      watchdog::abort_job("rank " + std::to_string(rank) + ": peer-put transport: " + f);
    }
  }

  /// Maps `handle` of `peer` once per peer (a handle is opened once per process).
  static void* open(std::map<int, mapped_ptr>& mapped, int peer, const cudaIpcMemHandle_t& handle) {
    auto it = mapped.find(peer);
    if (it != mapped.end()) return it->second.get();
    void* base = nullptr;
    DSPMV_CUDA_CHECK(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess));
    return mapped.emplace(peer, mapped_ptr(base)).first->second.get();
  }

  MPI_Comm comm_;
  halo_pattern pattern_;
  int sms_ = 1;
  gpu::device_ptr flags_, send_offsets_, destinations_, remote_ready_, remote_ack_;
  std::unique_ptr<spin_note, pinned_note_deleter> note_;
  std::map<int, mapped_ptr> ghosts_of_, flags_of_;
  put_params<V> params_{};
  gpu::ready_flags ready_{};
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_peer_put_transport(MPI_Comm comm, const halo_pattern& pattern, V* recv) {
  try {
    return std::make_unique<peer_put_transport<V>>(comm, pattern, recv);
  } catch (const std::exception& e) {  // e.g. a container without IPC between its processes
    throw error(std::string(e.what()) + " (--transport nccl or mpi-staged work without CUDA IPC)", __FILE__, __LINE__);
  }
}

template std::unique_ptr<halo_transport<double>> make_peer_put_transport(MPI_Comm, const halo_pattern&, double*);
template std::unique_ptr<halo_transport<float>> make_peer_put_transport(MPI_Comm, const halo_pattern&, float*);

}  // namespace distspmv::dist
