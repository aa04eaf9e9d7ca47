// CUDA IPC on one node: each rank pulls its ghosts straight out of its neighbours' packed send
// buffers with cudaMemcpyAsync, which runs on the copy engines. NCCL's kernel, however few
// channels it uses, slowed the local SpMV it overlapped by 5-9 µs on 4x H200, while copy-engine
// traffic (the staged transport, or the packing alone) cost about 1 µs
// (jobs/results/2026-11-22_h200x4_dist_run5).
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
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/gpu.hpp"
#include "dist/transport/transport.hpp"

namespace distspmv::dist {
namespace {

/// A pair of ranks can be each other's sender and receiver: each kind of message has its tag.
constexpr int tag_slice = 7300, tag_pulled_handle = 7301, tag_packed = 7302, tag_pulled = 7303;

/// What a sender tells one receiver at setup.
struct exported_slice {
  cudaIpcMemHandle_t buffer;
  cudaIpcEventHandle_t packed;
  std::int64_t offset = 0;  ///< of the receiver's entries in the sender's buffer
  std::int64_t count = 0;
};

cudaEvent_t make_ipc_event() {
  cudaEvent_t e = nullptr;
  DSPMV_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess));
  return e;
}

void wait_all(std::vector<MPI_Request>& requests) {
  if (!requests.empty())
    DSPMV_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  requests.clear();
}

template <typename V>
class ipc_transport final : public halo_transport<V> {
 public:
  ipc_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv)
      : comm_(comm), pattern_(pattern), recv_(recv) {
    const std::size_t n_receivers = pattern.send_ranks.size(), n_senders = pattern.recv_ranks.size();
    packed_ = make_ipc_event();
    pulled_ = make_ipc_event();
    // 1. Every message of the setup first, so that a CUDA failure below cannot leave a neighbour
    //    waiting (the caller agrees on errors across ranks).
    std::vector<exported_slice> out(n_receivers), in(n_senders);
    cudaIpcEventHandle_t my_pulled{};
    std::vector<cudaIpcEventHandle_t> receivers_pulled(n_receivers);
    cudaIpcMemHandle_t my_buffer{};
    cudaIpcEventHandle_t my_packed{};
    if (n_receivers > 0) {
      DSPMV_CUDA_CHECK(cudaIpcGetMemHandle(&my_buffer, const_cast<V*>(send)));
      DSPMV_CUDA_CHECK(cudaIpcGetEventHandle(&my_packed, packed_));
    }
    if (n_senders > 0) DSPMV_CUDA_CHECK(cudaIpcGetEventHandle(&my_pulled, pulled_));
    std::vector<MPI_Request> requests;
    auto post = [&](auto* data, int peer, int tag, bool sending) {
      const int bytes = static_cast<int>(sizeof(*data));
      requests.emplace_back();
      if (sending)
        DSPMV_MPI_CHECK(MPI_Isend(data, bytes, MPI_BYTE, peer, tag, comm_, &requests.back()));
      else
        DSPMV_MPI_CHECK(MPI_Irecv(data, bytes, MPI_BYTE, peer, tag, comm_, &requests.back()));
    };
    for (std::size_t i = 0; i < n_receivers; ++i) {
      out[i] = {my_buffer, my_packed, pattern.send_offsets[i], pattern.send_offsets[i + 1] - pattern.send_offsets[i]};
      post(&out[i], pattern.send_ranks[i], tag_slice, true);
      post(&receivers_pulled[i], pattern.send_ranks[i], tag_pulled_handle, false);
    }
    for (std::size_t j = 0; j < n_senders; ++j) {
      post(&in[j], pattern.recv_ranks[j], tag_slice, false);
      post(&my_pulled, pattern.recv_ranks[j], tag_pulled_handle, true);
    }
    wait_all(requests);
    // 2. Open what the neighbours exported.
    for (std::size_t j = 0; j < n_senders; ++j) {
      const auto expected = pattern.recv_offsets[j + 1] - pattern.recv_offsets[j];
      if (in[j].count != expected)
        throw error("cuda-ipc transport: rank " + std::to_string(pattern.recv_ranks[j]) + " sends " +
                        std::to_string(in[j].count) + " entries, " + std::to_string(expected) + " expected",
                    __FILE__, __LINE__);
      void* base = nullptr;
      DSPMV_CUDA_CHECK(cudaIpcOpenMemHandle(&base, in[j].buffer, cudaIpcMemLazyEnablePeerAccess));
      peer_buffers_.push_back(base);
      peer_slices_.push_back(static_cast<const V*>(base) + in[j].offset);
      senders_packed_.push_back(nullptr);
      DSPMV_CUDA_CHECK(cudaIpcOpenEventHandle(&senders_packed_.back(), in[j].packed));
    }
    for (std::size_t i = 0; i < n_receivers; ++i) {
      receivers_pulled_.push_back(nullptr);
      DSPMV_CUDA_CHECK(cudaIpcOpenEventHandle(&receivers_pulled_.back(), receivers_pulled[i]));
    }
    tokens_out_.resize(n_receivers + n_senders);
  }

  ipc_transport(const ipc_transport&) = delete;
  ipc_transport& operator=(const ipc_transport&) = delete;

  ~ipc_transport() override {
    for (void* p : peer_buffers_) cudaIpcCloseMemHandle(p);
    for (cudaEvent_t e : senders_packed_) cudaEventDestroy(e);
    for (cudaEvent_t e : receivers_pulled_) cudaEventDestroy(e);
    cudaEventDestroy(packed_);
    cudaEventDestroy(pulled_);
  }

  transport_kind kind() const override { return transport_kind::cuda_ipc; }

  void begin(cuda_stream_t stream) override {
    ++exchange_;
    if (pattern_.send_ranks.empty()) return;
    DSPMV_CUDA_CHECK(cudaEventRecord(packed_, stream));
    for (std::size_t i = 0; i < pattern_.send_ranks.size(); ++i) notify(pattern_.send_ranks[i], tag_packed, i);
  }

  void end(cuda_stream_t stream) override {
    const std::size_t n_receivers = pattern_.send_ranks.size(), n_senders = pattern_.recv_ranks.size();
    for (std::size_t j = 0; j < n_senders; ++j) {
      await(pattern_.recv_ranks[j], tag_packed);
      gpu::wait(stream, senders_packed_[j]);
      const auto count = static_cast<std::size_t>(pattern_.recv_offsets[j + 1] - pattern_.recv_offsets[j]);
      gpu::copy_async(recv_ + pattern_.recv_offsets[j], peer_slices_[j], count * sizeof(V), stream);
    }
    if (n_senders > 0) DSPMV_CUDA_CHECK(cudaEventRecord(pulled_, stream));
    for (std::size_t j = 0; j < n_senders; ++j) notify(pattern_.recv_ranks[j], tag_pulled, n_receivers + j);
    for (std::size_t i = 0; i < n_receivers; ++i) {
      await(pattern_.send_ranks[i], tag_pulled);
      gpu::wait(stream, receivers_pulled_[i]);
    }
    wait_all(requests_);
  }

 private:
  /// Sends this exchange's number to `peer` (slot: a buffer that stays valid until end()).
  void notify(int peer, int tag, std::size_t slot) {
    tokens_out_[slot] = exchange_;
    requests_.emplace_back();
    DSPMV_MPI_CHECK(MPI_Isend(&tokens_out_[slot], 1, MPI_INT64_T, peer, tag, comm_, &requests_.back()));
  }

  /// Waits for `peer`'s message of this exchange.
  void await(int peer, int tag) {
    std::int64_t token = -1;
    DSPMV_MPI_CHECK(MPI_Recv(&token, 1, MPI_INT64_T, peer, tag, comm_, MPI_STATUS_IGNORE));
    if (token != exchange_)
      throw error("cuda-ipc transport: rank " + std::to_string(peer) + " is at exchange " + std::to_string(token) +
                      ", this rank at " + std::to_string(exchange_) + " (the ranks must apply the same matrix together)",
                  __FILE__, __LINE__);
  }

  MPI_Comm comm_;
  halo_pattern pattern_;
  V* recv_;
  cudaEvent_t packed_ = nullptr, pulled_ = nullptr;
  std::vector<void*> peer_buffers_;
  std::vector<const V*> peer_slices_;
  std::vector<cudaEvent_t> senders_packed_, receivers_pulled_;
  std::int64_t exchange_ = 0;
  std::vector<std::int64_t> tokens_out_;  ///< the messages in flight, one per neighbour and direction
  std::vector<MPI_Request> requests_;
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_ipc_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                      V* recv) {
  return std::make_unique<ipc_transport<V>>(comm, pattern, send, recv);
}

template std::unique_ptr<halo_transport<double>> make_ipc_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                    double*);
template std::unique_ptr<halo_transport<float>> make_ipc_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                   float*);

}  // namespace distspmv::dist
