// The halo watchdog (DESIGN.md §5): no rank waits for ever on a neighbour that stopped applying
// or whose GPU failed. Every host wait of an apply (MPI requests of a halo exchange, the CUDA IPC
// transport's messages, a stream synchronisation that NCCL kernels may hold up) polls instead of
// blocking; past DISTSPMV_HALO_TIMEOUT seconds, or as soon as a live transport reports an
// asynchronous failure (NCCL), the rank prints one line naming itself, what it waited for and the
// neighbours involved, aborts the transports (ncclCommAbort) and then the job (MPI_Abort), so
// that no rank is left waiting.
//
// Setup is watched the same way at its agreements (dist::collective_try, which every setup step
// passes through): a rank that never arrives ends the job with the step named.
//
//   DISTSPMV_HALO_TIMEOUT=600          seconds (default 600; 0 waits for ever, as MPI itself would)
//   DISTSPMV_FAULT_STOP_AFTER=K        testing: one rank stops inside its apply number K + 1
//   DISTSPMV_FAULT_STOP_IN_SETUP=STEP  testing: one rank stops in the setup step named STEP (read,
//                                      partition, redistribute, order, halo plan, operators, transport)
//   DISTSPMV_FAULT_RANK=R              ... that rank (default: the last one)
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace distspmv::dist::watchdog {

/// DISTSPMV_HALO_TIMEOUT in seconds (0: no timeout); a malformed value is a bad_input.
double timeout_seconds();

/// A transport that is alive: what the watchdog names when a wait times out, how it learns of
/// the transport's own failures, and how it stops it before aborting the job. Registered for
/// its lifetime (RAII; the registry is process-wide and thread-safe).
struct watched_transport {
  std::string name;                          ///< e.g. "nccl"
  std::vector<int> peers;                    ///< ranks it exchanges with (of its communicator)
  std::function<std::string()> failure;      ///< empty while healthy, else what went wrong
  std::function<void()> abort;               ///< stops it (e.g. ncclCommAbort); may be empty
};

class registration {
 public:
  registration() = default;
  explicit registration(watched_transport t);
  registration(registration&& other) noexcept;
  registration& operator=(registration&& other) noexcept;
  registration(const registration&) = delete;
  registration& operator=(const registration&) = delete;
  ~registration();

 private:
  long id_ = 0;
};

/// Polls `done` until it returns true. Past the timeout, or when a registered transport reports
/// a failure, reports "rank R: waited S s for WHAT (halo transports: ...)" and aborts the job;
/// never returns then. `what` is only built when needed; `name_transports`: list the live
/// transports and their neighbours (where `what` does not name them itself).
void wait_until(const std::function<bool()>& done, const std::function<std::string()>& what,
                bool name_transports = true);

/// A wait of setup: polls `done` (the agreement of setup step `step`, ranks of `comm`) until it
/// returns true. Setup waits last as long as the slowest rank's step (seconds of METIS on rank 0),
/// so after a millisecond it polls every 100 us and leaves the cores to the ranks still working.
/// Past the timeout reports "rank R: waited S s in setup step 'STEP' for rank(s) ..." and aborts
/// the job; never returns then.
void wait_in_setup(const std::function<bool()>& done, const std::string& step, MPI_Comm comm);
/// The same for a non-blocking collective of `comm` (MPI_Iallreduce and the like).
void wait_in_setup(MPI_Request& request, const std::string& step, MPI_Comm comm);

/// A wait for one rank outside the apply and the setup's agreements (e.g. the turn of the rank
/// before in a file written rank by rank): polls `done` as wait_in_setup does; past the timeout
/// reports "rank R: waited S s for WHAT" and aborts the job; never returns then.
void wait_for_rank(const std::function<bool()>& done, const std::string& what);

/// MPI_Waitall under the watchdog; `peers[i]` is the rank at the other end of `requests[i]`
/// (in `comm`), named when the wait times out.
void wait_all(std::vector<MPI_Request>& requests, const std::vector<int>& peers, MPI_Comm comm,
              const std::string& transport);

/// Ends the job from one rank: prints `message`, aborts the registered transports, MPI_Abort.
[[noreturn]] void abort_job(const std::string& message);

/// Failure injection for tests: true on the rank named by DISTSPMV_FAULT_RANK (default: the last
/// rank of `comm`) when DISTSPMV_FAULT_STOP_AFTER is set; `stop_after` receives its value.
bool fault_injected(MPI_Comm comm, long& stop_after);

/// The injected fault: says so on stderr and never returns (the watchdog of the other ranks
/// ends the job).
[[noreturn]] void stop_here(int rank, long applies);

/// Failure injection for tests: true on the rank named by DISTSPMV_FAULT_RANK (default: the last
/// rank of `comm`) when DISTSPMV_FAULT_STOP_IN_SETUP names `step`.
bool fault_in_setup(MPI_Comm comm, const std::string& step);

/// The injected setup fault: says so on stderr and never returns.
[[noreturn]] void stop_in_setup(const std::string& step);

}  // namespace distspmv::dist::watchdog
