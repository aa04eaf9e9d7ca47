// NCCL grouped send/recv on device buffers, on the exchange stream (DESIGN.md §5). The
// communicator is bootstrapped from MPI (rank 0's unique id is broadcast) and shared by every
// matrix on the same ranks and GPU: creating one takes a good part of a second, and a solver or a
// test suite creates many matrices.
#include <cuda_runtime.h>
#include <nccl.h>

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"
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

using shared_comm = std::shared_ptr<ncclComm>;

/// The NCCL communicator over `comm`'s processes on this process's current GPU: reused while a
/// matrix still holds one for the same world ranks and GPU, created otherwise. Collective: the
/// ranks agree (one Allreduce) whether every one of them can reuse its cached communicator, so a
/// rank whose matrices are all gone makes the others create a fresh one too. A rank that fails
/// before a collective here still joins it, with a flag, so that no other rank waits in it.
shared_comm nccl_comm_for(MPI_Comm comm) {
  static std::mutex mutex;
  static std::map<std::pair<std::vector<int>, int>, std::weak_ptr<ncclComm>> cache;
  std::exception_ptr failure;
  std::pair<std::vector<int>, int> key;
  try {
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    DSPMV_MPI_CHECK(MPI_Comm_group(comm, &group));
    DSPMV_MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    const int size = comm_size(comm);
    std::vector<int> ranks(size), world_ranks(size);
    for (int r = 0; r < size; ++r) ranks[r] = r;
    DSPMV_MPI_CHECK(MPI_Group_translate_ranks(group, size, ranks.data(), world, world_ranks.data()));
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    int device = 0;
    DSPMV_CUDA_CHECK(cudaGetDevice(&device));
    key = std::make_pair(std::move(world_ranks), device);
  } catch (...) {
    failure = std::current_exception();
  }

  std::lock_guard<std::mutex> lock(mutex);
  shared_comm found = failure ? nullptr : cache[key].lock();
  int agreed[2] = {found ? 1 : 0, failure ? 0 : 1};  // every rank has one; every rank got this far
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MIN, comm));
  if (failure) std::rethrow_exception(failure);
  if (!agreed[1]) throw error("NCCL communicator: another rank failed before creating it", __FILE__, __LINE__);
  if (agreed[0]) return found;
  struct {
    ncclUniqueId id;
    int ok;
  } root{};
  if (comm_rank(comm) == 0) root.ok = ncclGetUniqueId(&root.id) == ncclSuccess;
  DSPMV_MPI_CHECK(MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, comm));
  if (!root.ok) throw error("NCCL communicator: ncclGetUniqueId failed on rank 0", __FILE__, __LINE__);
  ncclComm_t raw = nullptr;
  DSPMV_NCCL_CHECK(ncclCommInitRank(&raw, comm_size(comm), root.id, comm_rank(comm)));
  shared_comm made(raw, [](ncclComm_t c) { ncclCommDestroy(c); });
  cache[key] = made;
  return made;
}

template <typename V>
class nccl_transport final : public halo_transport<V> {
 public:
  nccl_transport(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv)
      : pattern_(pattern), send_(send), recv_(recv), owner_(nccl_comm_for(comm)), comm_(owner_.get()) {}

  transport_kind kind() const override { return transport_kind::nccl; }
  /// NCCL's point-to-point calls are captured into CUDA graphs since NCCL 2.9; the first apply of
  /// a matrix always runs eagerly, as NCCL asks of captured P2P calls.
  bool capturable() const override { return true; }

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

  std::string failure() override {
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) return "ncclCommGetAsyncError failed";
    if (state == ncclSuccess || state == ncclInProgress) return {};
    return std::string(ncclGetErrorString(state)) + ": " + ncclGetLastError(comm_);
  }

  // The communicator is shared by the matrices of these ranks; the job ends right after.
  void abort() override { ncclCommAbort(comm_); }

 private:
  halo_pattern pattern_;
  const V* send_;
  V* recv_;
  shared_comm owner_;
  ncclComm_t comm_;
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
