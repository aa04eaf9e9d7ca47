// Host-staged MPI: device send buffer → pinned host → MPI persistent requests → pinned host →
// device ghost buffer. The portable GPU path when MPI is not CUDA-aware (DESIGN.md §5).
#include "dist/gpu.hpp"
#include "dist/transport/mpi_transport.hpp"

namespace distspmv::dist {
namespace {

template <typename V>
class staged_transport final : public halo_transport<V> {
 public:
  staged_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv)
      : send_(send), recv_(recv), send_bytes_(pattern.send_total() * sizeof(V)),
        recv_bytes_(pattern.recv_total() * sizeof(V)), host_send_(gpu::allocate_pinned(send_bytes_)),
        host_recv_(gpu::allocate_pinned(recv_bytes_)),
        exchange_(comm, pattern, static_cast<const V*>(host_send_.get()), static_cast<V*>(host_recv_.get()),
                  transport_kind::mpi_staged) {}

  transport_kind kind() const override { return transport_kind::mpi_staged; }

  void begin(cuda_stream_t stream) override { gpu::copy_async(host_send_.get(), send_, send_bytes_, stream); }

  void end(cuda_stream_t stream) override {
    gpu::synchronize(stream);  // the packed entries are on the host
    exchange_.start();
    exchange_.wait();
    gpu::copy_async(recv_, host_recv_.get(), recv_bytes_, stream);
  }

 private:
  const V* send_;
  V* recv_;
  std::size_t send_bytes_, recv_bytes_;
  gpu::pinned_ptr host_send_, host_recv_;
  mpi_persistent_exchange<V> exchange_;
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_staged_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                         V* recv) {
  return std::make_unique<staged_transport<V>>(comm, pattern, send, recv);
}

template std::unique_ptr<halo_transport<double>> make_staged_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                       double*);
template std::unique_ptr<halo_transport<float>> make_staged_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                      float*);

}  // namespace distspmv::dist
