// NCCL grouped send/recv on device buffers, on the exchange stream (DESIGN.md §5). The
// communicator is bootstrapped from MPI (rank 0's unique id is broadcast) and made once per set of
// ranks and GPU: every matrix built on the same communicator shares it, and it lives until
// MPI_Finalize. Creating one takes 0.3-0.55 s, and a solver or a test suite builds many matrices;
// destroying one is a collective of its ranks in recent NCCL, which a matrix destructor (run
// wherever each rank's program frees it) must not be.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdlib>
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
#include "dist/watchdog.hpp"

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

/// The communicators made so far, by (world ranks, GPU). Never destroyed at exit: NCCL's teardown
/// after CUDA's would fail; MPI_Finalize destroys them (destroy_at_finalize), in key order, which
/// is the same on every rank.
using comm_key = std::pair<std::vector<int>, int>;
std::map<comm_key, shared_comm>& comm_cache() {
  static auto* cache = new std::map<comm_key, shared_comm>;
  return *cache;
}
/// Communicators replaced in the cache (a rank lost its own after a failed setup): destroyed with
/// the rest at MPI_Finalize, since destroying one is a collective that the other ranks skip.
std::vector<shared_comm>& retired() {
  static auto* r = new std::vector<shared_comm>;
  return *r;
}
std::mutex& cache_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

void destroy_all() {
  std::lock_guard<std::mutex> lock(cache_mutex());
  comm_cache().clear();  // the last reference: ncclCommDestroy (matrices still alive keep theirs)
  retired().clear();
}

/// The communicators go in MPI_Finalize.
void destroy_at_finalize() {
  static bool registered = false;
  if (registered) return;
  at_mpi_finalize(destroy_all);
  registered = true;
}

/// NVLink multicast stays off in every process (DEVICE.md: a program using it can put a shared
/// host's GPUs out of service), unless the user set the variable.
void keep_multicast_off() { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

/// MPI_Allreduce(MIN) of `v` under the setup watchdog: a rank that never arrives (stopped, or on
/// another path through setup) ends the job with the step named instead of a hang in NCCL's init.
void watched_min(int* v, int n, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  DSPMV_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MIN, comm, &request));
  watchdog::wait_in_setup(request, "transport (NCCL communicator)", comm);
}

/// The NCCL communicator over `comm`'s processes on this process's current GPU: the one made
/// earlier for the same world ranks and GPU, else a new one. Collective: the ranks agree (one
/// watched allreduce) whether every one of them has it, so that all create it or none does. A
/// rank that fails before a collective here still joins it, with a flag, so that no rank waits.
shared_comm nccl_comm_for(MPI_Comm comm) {
  keep_multicast_off();
  std::exception_ptr failure;
  comm_key key;
  try {
    destroy_at_finalize();
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

  std::lock_guard<std::mutex> lock(cache_mutex());
  auto& cache = comm_cache();
  const auto cached = failure ? cache.end() : cache.find(key);
  int agreed[2] = {cached != cache.end() ? 1 : 0, failure ? 0 : 1};  // every rank has one; got this far
  watched_min(agreed, 2, comm);
  if (failure) std::rethrow_exception(failure);
  if (!agreed[1]) throw error("NCCL communicator: another rank failed before creating it", __FILE__, __LINE__);
  if (agreed[0]) return cached->second;
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
  if (cached != cache.end()) retired().push_back(cached->second);  // others lost theirs: all create anew
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
