#include "dist/transport/mpi_transport.hpp"

#include <algorithm>

#include "dist/gpu.hpp"
#include "dist/setup/mpi_util.hpp"
#include "dist/watchdog.hpp"

namespace distspmv::dist {
namespace {
constexpr int halo_tag = 7411;
}

template <typename V>
mpi_persistent_exchange<V>::mpi_persistent_exchange(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                   V* recv, transport_kind kind)
    : comm_(comm), name_(to_string(kind)) {
  const std::int64_t limit = max_message_elements();
  auto add = [&](bool is_send, int peer, offset_type begin, offset_type end) {
    for (offset_type b = begin; b < end; b += limit) {
      const int n = static_cast<int>(std::min<offset_type>(limit, end - b));
      requests_.emplace_back();
      peers_.push_back(peer);
      if (is_send)
        DSPMV_MPI_CHECK(MPI_Send_init(send + b, n, mpi_type<V>(), peer, halo_tag, comm, &requests_.back()));
      else
        DSPMV_MPI_CHECK(MPI_Recv_init(recv + b, n, mpi_type<V>(), peer, halo_tag, comm, &requests_.back()));
    }
  };
  // Receives first, so that they are posted before the matching sends arrive.
  for (std::size_t i = 0; i < pattern.recv_ranks.size(); ++i)
    add(false, pattern.recv_ranks[i], pattern.recv_offsets[i], pattern.recv_offsets[i + 1]);
  for (std::size_t i = 0; i < pattern.send_ranks.size(); ++i)
    add(true, pattern.send_ranks[i], pattern.send_offsets[i], pattern.send_offsets[i + 1]);
}

template <typename V>
mpi_persistent_exchange<V>::~mpi_persistent_exchange() {
  for (auto& r : requests_)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
}

template <typename V>
void mpi_persistent_exchange<V>::start() {
  if (!requests_.empty()) DSPMV_MPI_CHECK(MPI_Startall(static_cast<int>(requests_.size()), requests_.data()));
}

template <typename V>
void mpi_persistent_exchange<V>::wait() {
  watchdog::wait_all(requests_, peers_, comm_, name_);
}

namespace {

/// Host buffers (host backend) or device buffers with a CUDA-aware MPI. On device buffers the
/// packing kernel must have finished before MPI reads them: begin() waits for the stream.
template <typename V>
class mpi_transport final : public halo_transport<V> {
 public:
  mpi_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv, bool device)
      : exchange_(comm, pattern, send, recv, device ? transport_kind::mpi_cuda : transport_kind::mpi_host),
        device_(device) {}
  transport_kind kind() const override { return device_ ? transport_kind::mpi_cuda : transport_kind::mpi_host; }
  void begin(cuda_stream_t stream) override {
    if (device_) gpu::synchronize(stream);
    exchange_.start();
  }
  void end(cuda_stream_t) override { exchange_.wait(); }

 private:
  mpi_persistent_exchange<V> exchange_;
  bool device_;
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_mpi_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                      V* recv, bool device_buffers) {
  return std::make_unique<mpi_transport<V>>(comm, pattern, send, recv, device_buffers);
}

template class mpi_persistent_exchange<double>;
template class mpi_persistent_exchange<float>;
template std::unique_ptr<halo_transport<double>> make_mpi_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                    double*, bool);
template std::unique_ptr<halo_transport<float>> make_mpi_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                   float*, bool);

}  // namespace distspmv::dist
