// MPI helpers of the setup: typed collectives whose counts may exceed 2^31, and agreement on
// failures so that one rank's bad input becomes the same error on every rank, never a hang.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/mpi_check.hpp"
#include "common/types.hpp"

namespace distspmv::dist {

/// MPI datatype of a fixed-width arithmetic type.
template <typename T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return MPI_UINT8_T;
  else static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

/// Runs `fn` in MPI_Finalize, which frees MPI_COMM_SELF's attributes first (before the other
/// communicators and the network go): where libraries with collective teardowns (NCCL
/// communicators, NVSHMEM) are ended on every rank at the same point, never in a destructor.
void at_mpi_finalize(void (*fn)());

/// Runs `step` on every rank, then agrees: if it threw on any rank, every rank throws the error
/// of the lowest failing rank (bad_input stays bad_input), marked collective(). Call it around
/// every piece of setup that can fail on some ranks only, before the next collective call.
///
/// `name` names the setup step (read, partition, redistribute, order, halo plan, operators,
/// transport). The agreement is a non-blocking allreduce polled under the halo watchdog
/// (dist/watchdog.hpp): a rank that never arrives (stopped, hung in its step) ends the job after
/// DISTSPMV_HALO_TIMEOUT seconds with the step named, not a hang. Ranks that arrive from steps of
/// different names (their sequences of collectives diverged: a bug) all throw, instead of
/// mismatching the collectives that follow. DISTSPMV_FAULT_STOP_IN_SETUP=NAME stops one rank
/// here (tests).
void collective_try(MPI_Comm comm, const std::string& name, const std::function<void()>& step);
/// The same, unnamed (the apps' agreements; setup steps have names).
void collective_try(MPI_Comm comm, const std::function<void()>& step);

/// Runs `step` on this rank, after the ranks of `comm` before it in `mates` (the ranks that share
/// this rank's GPU, ascending, this rank among them: dist::gpu_mates) and before those after it;
/// every mate then waits until the last has run it, so that none starts other GPU work during
/// another's turn. Alone on its GPU (one mate or none) a rank runs `step` at once. A product timed
/// while other ranks use the same GPU times their sum: with more ranks than GPUs (tests, `mpirun
/// -np 4` on one GPU) the timed trials and the report's per-rank products take turns, so that each
/// rank's figures and choices are those it would get on a GPU of its own. The turns pass by
/// point-to-point messages waited for under the watchdog (wait_for_rank, naming `name` and the
/// rank), so a mate that never comes ends the job with that message instead of a hang. A step that
/// throws still passes the turn on; the error is rethrown after (collective_try around it agrees).
void one_rank_per_gpu_at_a_time(MPI_Comm comm, const std::vector<int>& mates, const std::string& name,
                                const std::function<void()>& step);

/// Elements per message of the large-count collectives below (2^30 by default; tests lower it to
/// exercise the chunked path).
void set_max_message_elements(std::int64_t n);
std::int64_t max_message_elements();

/// MPI_Alltoallv with 64-bit counts: one MPI_Alltoallv while everything fits an int, else
/// point-to-point messages of at most max_message_elements(). Displacements are the exclusive
/// prefix sums of the counts. Returns the received elements (sum of recv_counts).
void alltoallv_raw(const void* send, const std::vector<std::int64_t>& send_counts, void* recv,
                   const std::vector<std::int64_t>& recv_counts, MPI_Datatype type, std::size_t type_bytes,
                   MPI_Comm comm);

/// Exchanges counts (MPI_Alltoall) and data; returns the received data, grouped by source rank.
template <typename T>
std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<std::int64_t>& send_counts,
                         std::vector<std::int64_t>* recv_counts_out, MPI_Comm comm) {
  const int p = comm_size(comm);
  std::vector<std::int64_t> recv_counts(p);
  DSPMV_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T, comm));
  std::int64_t total = 0;
  for (auto c : recv_counts) total += c;
  std::vector<T> recv(static_cast<std::size_t>(total));
  alltoallv_raw(send.data(), send_counts, recv.data(), recv_counts, mpi_type<T>(), sizeof(T), comm);
  if (recv_counts_out) *recv_counts_out = std::move(recv_counts);
  return recv;
}

/// Same as alltoallv with the receive counts known (e.g. a second exchange with the same shape).
template <typename T>
void alltoallv_known(const T* send, const std::vector<std::int64_t>& send_counts, T* recv,
                     const std::vector<std::int64_t>& recv_counts, MPI_Comm comm) {
  alltoallv_raw(send, send_counts, recv, recv_counts, mpi_type<T>(), sizeof(T), comm);
}

/// Gathers variable-length arrays on `root` (64-bit counts); other ranks get an empty vector.
template <typename T>
std::vector<T> gatherv(const std::vector<T>& mine, int root, MPI_Comm comm) {
  const int p = comm_size(comm), me = comm_rank(comm);
  std::vector<std::int64_t> send_counts(p, 0), recv_counts(p, 0);
  send_counts[root] = static_cast<std::int64_t>(mine.size());
  const std::int64_t n = send_counts[root];
  std::vector<std::int64_t> all(p);
  DSPMV_MPI_CHECK(MPI_Gather(&n, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, root, comm));
  if (me == root) recv_counts = all;
  std::int64_t total = 0;
  for (auto c : recv_counts) total += c;
  std::vector<T> out(static_cast<std::size_t>(total));
  alltoallv_raw(mine.data(), send_counts, out.data(), recv_counts, mpi_type<T>(), sizeof(T), comm);
  return out;
}

/// Exclusive prefix sum over ranks of a per-rank value (0 on rank 0) and the total.
std::int64_t exscan_sum(std::int64_t mine, MPI_Comm comm, std::int64_t* total = nullptr);

/// Elementwise sum / max over ranks.
std::vector<std::int64_t> allreduce_sum(std::vector<std::int64_t> v, MPI_Comm comm);
std::int64_t allreduce_max(std::int64_t v, MPI_Comm comm);
double allreduce_max(double v, MPI_Comm comm);

/// Every rank's value, in rank order.
std::vector<std::int64_t> allgather(std::int64_t mine, MPI_Comm comm);
std::vector<std::string> allgather(const std::string& mine, MPI_Comm comm);

}  // namespace distspmv::dist
