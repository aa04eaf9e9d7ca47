// CUDA IPC on one node: each rank pulls its ghosts straight out of its neighbours' packed send
// buffers with cudaMemcpyAsync, which runs on the copy engines. NCCL's kernel, whatever its
// protocol or channel count, slowed the local SpMV it overlapped by 5-9 µs on 4x H200, where the
// packing alone cost at most 1.5 µs (jobs/results/2026-11-22_h200x4_dist_run5); over this
// transport the overlap efficiency on 2x H200 is 0.94-0.96 (..._h200x2_dist_run6).
//
// Setup (collective over the neighbours): every sender exports, per receiver, an IPC handle of its
// send buffer, the receiver's offset in it and an interprocess event `packed_` that it records once
// the buffer is packed; every receiver exports an event `pulled_` that it records after its copies.
//
// One exchange, k:
//   begin: record packed_ (after the packing on the stream), then tell each receiver "packed k".
//   end:   for each sender, on its "packed k": wait for its packed_ on the stream, copy its slice.
//          Record pulled_, tell each sender "pulled k". On each receiver's "pulled k": wait for its
//          pulled_ on the stream, so the next packing cannot overwrite what it still copies.
// cudaStreamWaitEvent waits for the event's latest record. The messages make that record the
// one of exchange k: a sender records packed_ for k + 1 only after every receiver's "pulled k",
// which the receiver sends after its wait; likewise for pulled_. The host only waits for the
// neighbours' hosts to reach the same exchange, while the GPU runs the local SpMV.
#include <cuda_runtime.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/gpu.hpp"
#include "dist/transport/ipc_setup.hpp"
#include "dist/transport/transport.hpp"
#include "dist/watchdog.hpp"

namespace distspmv::dist {
namespace {

/// A pair of ranks can be each other's sender and receiver: each kind of message has its tag.
constexpr int tag_slice = 7300, tag_pulled_handle = 7301, tag_packed = 7302, tag_pulled = 7303;

/// What a sender tells one receiver at setup, and a receiver its senders. `ok` == 0: the sender
/// could not export its handles (the message is still sent, so that no neighbour waits forever).
struct exported_slice {
  cudaIpcMemHandle_t buffer;
  cudaIpcEventHandle_t packed;
  std::int64_t offset = 0;  ///< of the receiver's entries in the sender's buffer
  std::int64_t count = 0;
  std::int32_t ok = 0;
};
struct exported_event {
  cudaIpcEventHandle_t pulled;
  std::int32_t ok = 0;
};

gpu::event_ptr make_ipc_event() {
  cudaEvent_t e = nullptr;
  DSPMV_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess));
  return gpu::event_ptr(e);
}

gpu::event_ptr open_event(const cudaIpcEventHandle_t& handle) {
  cudaEvent_t e = nullptr;
  DSPMV_CUDA_CHECK(cudaIpcOpenEventHandle(&e, handle));
  return gpu::event_ptr(e);
}

[[noreturn]] void fail(const std::string& what) { throw error("cuda-ipc transport: " + what, __FILE__, __LINE__); }

template <typename V>
class ipc_transport final : public halo_transport<V> {
 public:
  ipc_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv)
      : comm_(comm), pattern_(pattern), recv_(recv) {
    const std::size_t n_receivers = pattern.send_ranks.size(), n_senders = pattern.recv_ranks.size();
    // 1. This rank's handles. A failure is held until every setup message has gone both ways,
    //    so that no neighbour is left waiting (the caller then agrees on errors across ranks).
    std::exception_ptr failure;
    cudaIpcMemHandle_t my_buffer{};
    cudaIpcEventHandle_t my_packed{};
    exported_event my_pulled{};
    try {
      packed_ = make_ipc_event();
      pulled_ = make_ipc_event();
      if (n_receivers > 0) {
        DSPMV_CUDA_CHECK(cudaIpcGetMemHandle(&my_buffer, const_cast<V*>(send)));
        DSPMV_CUDA_CHECK(cudaIpcGetEventHandle(&my_packed, packed_.get()));
      }
      if (n_senders > 0) DSPMV_CUDA_CHECK(cudaIpcGetEventHandle(&my_pulled.pulled, pulled_.get()));
    } catch (...) {
      failure = std::current_exception();
    }
    const std::int32_t ok = failure ? 0 : 1;
    my_pulled.ok = ok;
    // 2. Exchange them with the neighbours.
    std::vector<exported_slice> out(n_receivers), in(n_senders);
    std::vector<exported_event> receivers_pulled(n_receivers);
    setup_messages messages(comm_);
    for (std::size_t i = 0; i < n_receivers; ++i) {
      out[i] = {my_buffer, my_packed, pattern.send_offsets[i], pattern.send_offsets[i + 1] - pattern.send_offsets[i], ok};
      messages.send(out[i], pattern.send_ranks[i], tag_slice);
      messages.receive(receivers_pulled[i], pattern.send_ranks[i], tag_pulled_handle);
    }
    for (std::size_t j = 0; j < n_senders; ++j) {
      messages.receive(in[j], pattern.recv_ranks[j], tag_slice);
      messages.send(my_pulled, pattern.recv_ranks[j], tag_pulled_handle);
    }
    messages.wait("cuda-ipc");
    if (failure) std::rethrow_exception(failure);
    // 3. Open what the neighbours exported.
    for (std::size_t j = 0; j < n_senders; ++j) {
      const std::string peer = "rank " + std::to_string(pattern.recv_ranks[j]);
      if (!in[j].ok) fail(peer + " could not export its send buffer");
      const auto expected = pattern.recv_offsets[j + 1] - pattern.recv_offsets[j];
      if (in[j].count != expected)
        fail(peer + " sends " + std::to_string(in[j].count) + " entries, " + std::to_string(expected) + " expected");
      void* base = nullptr;
      DSPMV_CUDA_CHECK(cudaIpcOpenMemHandle(&base, in[j].buffer, cudaIpcMemLazyEnablePeerAccess));
      peer_buffers_.emplace_back(base);
      peer_slices_.push_back(static_cast<const V*>(base) + in[j].offset);
      senders_packed_.push_back(open_event(in[j].packed));
    }
    for (std::size_t i = 0; i < n_receivers; ++i) {
      if (!receivers_pulled[i].ok) fail("rank " + std::to_string(pattern.send_ranks[i]) + " could not export its event");
      receivers_pulled_.push_back(open_event(receivers_pulled[i].pulled));
    }
    tokens_out_.resize(n_receivers + n_senders);
  }

  transport_kind kind() const override { return transport_kind::cuda_ipc; }

  void begin(cuda_stream_t stream) override {
    ++exchange_;
    if (pattern_.send_ranks.empty()) return;
    DSPMV_CUDA_CHECK(cudaEventRecord(packed_.get(), stream));
    for (std::size_t i = 0; i < pattern_.send_ranks.size(); ++i) notify(pattern_.send_ranks[i], tag_packed, i);
  }

  void end(cuda_stream_t stream) override {
    const std::size_t n_receivers = pattern_.send_ranks.size(), n_senders = pattern_.recv_ranks.size();
    for (std::size_t j = 0; j < n_senders; ++j) {
      await(pattern_.recv_ranks[j], tag_packed);
      gpu::wait(stream, senders_packed_[j].get());
      const auto count = static_cast<std::size_t>(pattern_.recv_offsets[j + 1] - pattern_.recv_offsets[j]);
      gpu::copy_async(recv_ + pattern_.recv_offsets[j], peer_slices_[j], count * sizeof(V), stream);
    }
    if (n_senders > 0) DSPMV_CUDA_CHECK(cudaEventRecord(pulled_.get(), stream));
    for (std::size_t j = 0; j < n_senders; ++j) notify(pattern_.recv_ranks[j], tag_pulled, n_receivers + j);
    for (std::size_t i = 0; i < n_receivers; ++i) {
      await(pattern_.send_ranks[i], tag_pulled);
      gpu::wait(stream, receivers_pulled_[i].get());
    }
    watchdog::wait_all(requests_, request_peers_, comm_, "cuda-ipc");
    requests_.clear();
    request_peers_.clear();
  }

 private:
  /// Sends this exchange's number to `peer` (slot: a buffer that stays valid until end()).
  void notify(int peer, int tag, std::size_t slot) {
    tokens_out_[slot] = exchange_;
    requests_.emplace_back();
    request_peers_.push_back(peer);
    DSPMV_MPI_CHECK(MPI_Isend(&tokens_out_[slot], 1, MPI_INT64_T, peer, tag, comm_, &requests_.back()));
  }

  /// Waits for `peer`'s message of this exchange (under the watchdog: a neighbour that stopped
  /// applying ends the job with its rank named).
  void await(int peer, int tag) {
    std::int64_t token = -1;
    std::vector<MPI_Request> request(1);
    DSPMV_MPI_CHECK(MPI_Irecv(&token, 1, MPI_INT64_T, peer, tag, comm_, request.data()));
    watchdog::wait_all(request, {peer}, comm_, "cuda-ipc");
    if (token != exchange_)
      fail("rank " + std::to_string(peer) + " is at exchange " + std::to_string(token) + ", this rank at " +
           std::to_string(exchange_) + " (the ranks must apply the same matrix together)");
  }

  MPI_Comm comm_;
  halo_pattern pattern_;
  V* recv_;
  gpu::event_ptr packed_, pulled_;
  std::vector<mapped_ptr> peer_buffers_;
  std::vector<const V*> peer_slices_;
  std::vector<gpu::event_ptr> senders_packed_, receivers_pulled_;
  std::int64_t exchange_ = 0;
  std::vector<std::int64_t> tokens_out_;  ///< the messages in flight, one per neighbour and direction
  std::vector<MPI_Request> requests_;
  std::vector<int> request_peers_;  ///< the rank each of requests_ goes to
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_ipc_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                      V* recv) {
  try {
    return std::make_unique<ipc_transport<V>>(comm, pattern, send, recv);
  } catch (const std::exception& e) {  // e.g. a container without IPC between its processes
    throw error(std::string(e.what()) + " (--transport nccl or mpi-staged work without CUDA IPC)", __FILE__, __LINE__);
  }
}

template std::unique_ptr<halo_transport<double>> make_ipc_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                    double*);
template std::unique_ptr<halo_transport<float>> make_ipc_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                   float*);

}  // namespace distspmv::dist
