// NCCL grouped send/recv on device buffers, on the exchange stream (DESIGN.md §5). The
// communicator is bootstrapped from MPI: rank 0's unique id is broadcast.
#include <nccl.h>

#include <string>

#include "common/errors.hpp"
#include "dist/setup/mpi_util.hpp"
#include "dist/transport/transport.hpp"

#define DSPMV_NCCL_CHECK(call)                                                                       \
  do {                                                                                               \
    const ncclResult_t dspmv_nccl_rc_ = (call);                                                      \
    if (dspmv_nccl_rc_ != ncclSuccess)                                                               \
      throw ::distspmv::cuda_error(#call, ncclGetErrorString(dspmv_nccl_rc_), __FILE__, __LINE__);   \
  } while (0)

namespace distspmv::dist {
namespace {

template <typename V>
constexpr ncclDataType_t nccl_type() {
  return sizeof(V) == 8 ? ncclDouble : ncclFloat;
}

template <typename V>
class nccl_transport final : public halo_transport<V> {
 public:
  nccl_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv)
      : pattern_(pattern), send_(send), recv_(recv) {
    ncclUniqueId id{};
    if (comm_rank(comm) == 0) DSPMV_NCCL_CHECK(ncclGetUniqueId(&id));
    DSPMV_MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm));
    DSPMV_NCCL_CHECK(ncclCommInitRank(&comm_, comm_size(comm), id, comm_rank(comm)));
  }
  nccl_transport(const nccl_transport&) = delete;
  nccl_transport& operator=(const nccl_transport&) = delete;
  ~nccl_transport() override {
    if (comm_) ncclCommDestroy(comm_);
  }

  transport_kind kind() const override { return transport_kind::nccl; }

  void begin(cuda_stream_t stream) override {
    DSPMV_NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < pattern_.recv_ranks.size(); ++i)
      DSPMV_NCCL_CHECK(ncclRecv(recv_ + pattern_.recv_offsets[i], pattern_.recv_offsets[i + 1] - pattern_.recv_offsets[i],
                                nccl_type<V>(), pattern_.recv_ranks[i], comm_, stream));
    for (std::size_t i = 0; i < pattern_.send_ranks.size(); ++i)
      DSPMV_NCCL_CHECK(ncclSend(send_ + pattern_.send_offsets[i], pattern_.send_offsets[i + 1] - pattern_.send_offsets[i],
                                nccl_type<V>(), pattern_.send_ranks[i], comm_, stream));
    DSPMV_NCCL_CHECK(ncclGroupEnd());
  }

  void end(cuda_stream_t) override {}

 private:
  halo_pattern pattern_;
  const V* send_;
  V* recv_;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_nccl_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send,
                                                       V* recv) {
  return std::make_unique<nccl_transport<V>>(comm, pattern, send, recv);
}

template std::unique_ptr<halo_transport<double>> make_nccl_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                     double*);
template std::unique_ptr<halo_transport<float>> make_nccl_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                    float*);

}  // namespace distspmv::dist
