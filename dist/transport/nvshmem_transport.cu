// nvshmem: NVSHMEM's put-with-signal, driven from the host on the exchange's streams (issue 36,
// docs/design.md#transports). Built where CMake finds NVSHMEM 3 (cmake/FindNVSHMEM.cmake); only
// its host library is linked, so the rest of distspmv needs no relocatable device code.
//
// Each transport holds one region of NVSHMEM's symmetric heap:
//   [ready: one signal per sender][ack: one per receiver][ghosts][send entries]
// At setup each rank tells its senders where their entries and their ready signal lie in its
// region, and its receivers where their ack lies (symmetric addresses are offsets into the same
// region on every PE). One exchange:
//   sender:   gather x[send_idx] into its send entries; wait until every receiver's ack is 1, set
//             them to 0; per receiver one put-with-signal (ready = 1 there once the data is);
//   receiver: wait until every ready is 1, set them to 0; the halo product reads the ghosts;
//             then (release) set ack = 1 at every sender.
// The signals only take the values 0 and 1, so that a captured apply replays unchanged: the
// exchange is stream-ordered NVSHMEM calls (waits on memory, puts, signals), which a CUDA graph
// captures. NVSHMEM moves the data over NVLink within a node and over its network transports
// (InfiniBand, through its proxy thread) across nodes: the same protocol in both places.
//
// NVSHMEM is started once per process, over the first communicator a matrix asks for it with
// (rank 0's unique id, broadcast over MPI), and must span every PE: symmetric allocations are
// collective over all of them. Regions are never freed while MPI runs (nvshmem_free is a
// collective, which a matrix destructor must not be): a destroyed matrix's region is reused by
// a later matrix once every rank has destroyed its own, and all go at MPI_Finalize.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nvshmem_host.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/gpu.hpp"
#include "dist/setup/mpi_util.hpp"
#include "dist/transport/ipc_setup.hpp"
#include "dist/transport/transport.hpp"
#include "dist/watchdog.hpp"

namespace distspmv::dist {
namespace {

using signal_t = std::uint64_t;
constexpr int tag_receiver = 7320, tag_sender = 7321;

[[noreturn]] void fail(const std::string& what) { throw error("nvshmem transport: " + what, __FILE__, __LINE__); }

/// NVLink multicast stays off in every process (DEVICE.md), unless the user set the variables;
/// NVSHMEM may run its collectives over NCCL.
void keep_multicast_off() {
  setenv("NVSHMEM_DISABLE_NVLS", "1", /*overwrite=*/0);
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
}

/// Waits for a collective `request` of `comm` under the setup watchdog: a rank that never arrives
/// ends the job with the step named instead of a hang.
void watched(MPI_Request& request, MPI_Comm comm) { watchdog::wait_in_setup(request, "transport (NVSHMEM)", comm); }
void watched_allreduce(void* values, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  DSPMV_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, values, n, type, op, comm, &request));
  watched(request, comm);
}

struct region {
  void* base = nullptr;
  std::size_t bytes = 0;
  bool in_use = false;
};
/// The symmetric regions, by allocation: the same list on every PE, since every PE takes part in
/// every allocation.
std::vector<region>& regions() {
  static auto* list = new std::vector<region>;
  return *list;
}
bool started_here = false;  ///< NVSHMEM started by distspmv (else by the application, which ends it)

/// In MPI_Finalize (at_mpi_finalize): the regions, then NVSHMEM where distspmv started it.
void finalize_all() {
  for (auto& r : regions()) nvshmem_free(r.base);  // collective: in allocation order on every PE
  regions().clear();
  if (started_here) nvshmemx_hostlib_finalize();
}

/// NVSHMEM over `comm`'s processes on their current GPUs: started here when no rank of `comm` has
/// it (unique-id bootstrap, no MPI plugin of NVSHMEM's), else the running one, which must span
/// exactly `comm`'s ranks. Returns the PE of each rank of `comm`. Collective.
std::vector<int> start(MPI_Comm comm) {
  keep_multicast_off();
  const int rank = comm_rank(comm), size = comm_size(comm);
  const int on = nvshmemx_init_status() >= NVSHMEM_STATUS_IS_INITIALIZED ? 1 : 0;
  int range[2] = {on, -on};  // min and -max
  watched_allreduce(range, 2, MPI_INT, MPI_MIN, comm);
  if (range[0] != -range[1])
    fail("NVSHMEM runs on some ranks of this communicator and not on others (started over another communicator); "
         "it must span the matrix's communicator exactly");
  if (range[0] == 0) {
    struct {
      nvshmemx_uniqueid_t id;
      int ok;
    } root{NVSHMEMX_UNIQUEID_INITIALIZER, 1};
    if (rank == 0) root.ok = nvshmemx_get_uniqueid(&root.id) == 0;
    MPI_Request request = MPI_REQUEST_NULL;
    DSPMV_MPI_CHECK(MPI_Ibcast(&root, sizeof root, MPI_BYTE, 0, comm, &request));
    watched(request, comm);
    if (!root.ok) fail("nvshmemx_get_uniqueid failed on rank 0");
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmemx_set_attr_uniqueid_args(rank, size, &root.id, &attr) != 0 ||
        nvshmemx_hostlib_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0)
      fail("NVSHMEM did not start on rank " + std::to_string(rank) + " (NVSHMEM_DEBUG=WARN says why)");
    started_here = true;
    at_mpi_finalize(finalize_all);
  }
  // Ranks that share a GPU without MPS get "limited MPG": no stream-ordered waits, which this
  // transport is made of. Agreed, so that every rank refuses alike.
  int limited = nvshmemx_init_status() == NVSHMEM_STATUS_LIMITED_MPG ? 1 : 0;
  watched_allreduce(&limited, 1, MPI_INT, MPI_MAX, comm);
  if (limited)
    fail("ranks share a GPU, and NVSHMEM supports that only under CUDA MPS (start nvidia-cuda-mps-control -d, "
         "with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE at most 100 / ranks per GPU) or use --transport peer-put");
  if (nvshmem_n_pes() != size)
    fail("NVSHMEM spans " + std::to_string(nvshmem_n_pes()) + " processes and this communicator " +
         std::to_string(size) + ": symmetric memory is allocated by every PE together, so the matrix's communicator "
         "must hold them all (--transport peer-put or nccl work on any communicator)");
  std::vector<int> pes(size);
  const int pe = nvshmem_my_pe();
  MPI_Request request = MPI_REQUEST_NULL;
  DSPMV_MPI_CHECK(MPI_Iallgather(&pe, 1, MPI_INT, pes.data(), 1, MPI_INT, comm, &request));
  watched(request, comm);
  return pes;
}

/// A region of at least `bytes` on every PE (the largest request of `comm`'s ranks): a region that
/// every rank has released, else a new one. Collective.
std::size_t acquire(MPI_Comm comm, std::size_t bytes) {
  auto& list = regions();
  std::vector<std::uint64_t> mask((list.size() + 63) / 64 + 1, 0);  // mask[0]: bytes (max)
  mask[0] = bytes;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!list[i].in_use) mask[1 + i / 64] |= std::uint64_t{1} << (i % 64);
  watched_allreduce(mask.data(), 1, MPI_UINT64_T, MPI_MAX, comm);
  watched_allreduce(mask.data() + 1, static_cast<int>(mask.size() - 1), MPI_UINT64_T, MPI_BAND, comm);
  const std::size_t need = std::max<std::uint64_t>(mask[0], 64);
  for (std::size_t i = 0; i < list.size(); ++i)
    if ((mask[1 + i / 64] >> (i % 64) & 1) && list[i].bytes >= need) {
      list[i].in_use = true;
      return i;
    }
  void* base = nvshmem_malloc(need);
  int ok = base ? 1 : 0;  // agreed: the ranks go on to point-to-point setup messages together or not at all
  watched_allreduce(&ok, 1, MPI_INT, MPI_MIN, comm);
  if (!ok) {
    list.push_back({base, need, true});  // every PE keeps its entry (the lists stay alike), never reused
    fail("nvshmem_malloc of " + std::to_string(need) + " bytes failed: the symmetric heap is full (raise "
         "NVSHMEM_SYMMETRIC_SIZE) or GPU memory is, on at least one rank");
  }
  list.push_back({base, need, true});
  return list.size() - 1;
}

/// Where a receiver's ghosts and signal for one sender lie, as offsets into the region.
struct receiver_info {
  std::int64_t ghosts = 0, count = 0, ready = 0;
};

template <typename V>
class nvshmem_transport final : public halo_transport<V> {
 public:
  nvshmem_transport(MPI_Comm comm, const halo_pattern& pattern) : pattern_(pattern) {
    const auto pes = start(comm);
    const std::size_t n_senders = pattern.recv_ranks.size(), n_receivers = pattern.send_ranks.size();
    const std::size_t ghost_at = (n_senders + n_receivers) * sizeof(signal_t);
    const std::size_t send_at = (ghost_at + pattern.recv_total() * sizeof(V) + 15) / 16 * 16;
    region_ = acquire(comm, send_at + pattern.send_total() * sizeof(V));
    base_ = static_cast<char*>(regions()[region_].base);
    ready_ = reinterpret_cast<signal_t*>(base_);
    ack_ = ready_ + n_senders;
    ghosts_ = reinterpret_cast<V*>(base_ + ghost_at);
    send_ = reinterpret_cast<V*>(base_ + send_at);
    // ready = 0; ack = 1, every receiver's ghosts free; before any neighbour learns the layout.
    std::vector<signal_t> signals(n_senders + n_receivers, 0);
    std::fill(signals.begin() + static_cast<std::ptrdiff_t>(n_senders), signals.end(), 1);
    DSPMV_CUDA_CHECK(cudaMemcpy(base_, signals.data(), signals.size() * sizeof(signal_t), cudaMemcpyHostToDevice));

    std::vector<receiver_info> to_senders(n_senders), from_receivers(n_receivers);
    std::vector<std::int64_t> to_receivers(n_receivers), from_senders(n_senders);
    setup_messages messages(comm);
    for (std::size_t j = 0; j < n_senders; ++j) {
      to_senders[j] = {static_cast<std::int64_t>(ghost_at + pattern.recv_offsets[j] * sizeof(V)),
                       pattern.recv_offsets[j + 1] - pattern.recv_offsets[j],
                       static_cast<std::int64_t>(j * sizeof(signal_t))};
      messages.send(to_senders[j], pattern.recv_ranks[j], tag_receiver);
      messages.receive(from_senders[j], pattern.recv_ranks[j], tag_sender);
    }
    for (std::size_t i = 0; i < n_receivers; ++i) {
      to_receivers[i] = static_cast<std::int64_t>((n_senders + i) * sizeof(signal_t));
      messages.send(to_receivers[i], pattern.send_ranks[i], tag_sender);
      messages.receive(from_receivers[i], pattern.send_ranks[i], tag_receiver);
    }
    messages.wait("nvshmem");
    for (std::size_t i = 0; i < n_receivers; ++i) {
      const auto expected = pattern.send_offsets[i + 1] - pattern.send_offsets[i];
      if (from_receivers[i].count != expected)
        fail("rank " + std::to_string(pattern.send_ranks[i]) + " expects " + std::to_string(from_receivers[i].count) +
             " entries, this rank sends " + std::to_string(expected));
      puts_.push_back({base_ + from_receivers[i].ghosts, send_ + pattern.send_offsets[i],
                       static_cast<std::size_t>(expected) * sizeof(V),
                       reinterpret_cast<signal_t*>(base_ + from_receivers[i].ready), pes[pattern.send_ranks[i]]});
    }
    for (std::size_t j = 0; j < n_senders; ++j)
      acks_.push_back({reinterpret_cast<signal_t*>(base_ + from_senders[j]), pes[pattern.recv_ranks[j]]});
  }

  /// The region goes back to the pool once this rank's last puts and signals have landed, so that
  /// none reaches the matrix that reuses it (local: no collective in a destructor).
  ~nvshmem_transport() override {
    cudaDeviceSynchronize();  // the streams' NVSHMEM calls issued
    nvshmem_quiet();          // and delivered
    if (region_ < regions().size()) regions()[region_].in_use = false;  // (gone after MPI_Finalize)
  }

  transport_kind kind() const override { return transport_kind::nvshmem; }
  bool capturable() const override { return true; }
  bool gathers() const override { return true; }
  V* ghosts() override { return ghosts_; }

  void begin_from(const V* x, const index_type* send_idx, cuda_stream_t stream) override {
    if (puts_.empty()) return;
    gpu::gather(x, send_idx, pattern_.send_total(), send_, stream);
    for (std::size_t i = 0; i < puts_.size(); ++i)
      nvshmemx_signal_wait_until_on_stream(ack_ + i, NVSHMEM_CMP_EQ, 1, stream);
    DSPMV_CUDA_CHECK(cudaMemsetAsync(ack_, 0, puts_.size() * sizeof(signal_t), stream));
    for (const auto& p : puts_)
      nvshmemx_putmem_signal_on_stream(p.ghosts, p.entries, p.bytes, p.ready, 1, NVSHMEM_SIGNAL_SET, p.pe, stream);
  }
  void begin(cuda_stream_t) override { fail("begin() without x: this transport packs itself (begin_from)"); }

  void end(cuda_stream_t stream) override {
    if (acks_.empty()) return;
    for (std::size_t j = 0; j < acks_.size(); ++j)
      nvshmemx_signal_wait_until_on_stream(ready_ + j, NVSHMEM_CMP_EQ, 1, stream);
    DSPMV_CUDA_CHECK(cudaMemsetAsync(ready_, 0, acks_.size() * sizeof(signal_t), stream));
  }

  bool release(cuda_stream_t stream) override {
    for (const auto& a : acks_) nvshmemx_signal_op_on_stream(a.slot, 1, NVSHMEM_SIGNAL_SET, a.pe, stream);
    return !acks_.empty();
  }

 private:
  struct put {
    void* ghosts;  ///< the receiver's ghosts for this rank (a symmetric address)
    const V* entries;
    std::size_t bytes;
    signal_t* ready;  ///< this rank's ready signal at the receiver
    int pe;
  };
  struct ack {
    signal_t* slot;  ///< this rank's ack signal at the sender
    int pe;
  };

  halo_pattern pattern_;
  std::size_t region_ = 0;
  char* base_ = nullptr;
  signal_t *ready_ = nullptr, *ack_ = nullptr;
  V *ghosts_ = nullptr, *send_ = nullptr;
  std::vector<put> puts_;
  std::vector<ack> acks_;
};

}  // namespace

template <typename V>
std::unique_ptr<halo_transport<V>> make_nvshmem_transport(MPI_Comm comm, const halo_pattern& pattern) {
  return std::make_unique<nvshmem_transport<V>>(comm, pattern);
}

template std::unique_ptr<halo_transport<double>> make_nvshmem_transport(MPI_Comm, const halo_pattern&);
template std::unique_ptr<halo_transport<float>> make_nvshmem_transport(MPI_Comm, const halo_pattern&);

}  // namespace distspmv::dist
