#include "dist/watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "common/errors.hpp"
#include "common/mpi_check.hpp"

namespace distspmv::dist::watchdog {
namespace {

constexpr double default_timeout_s = 600;

/// The live transports, by registration id.
struct registry {
  std::mutex mutex;
  std::map<long, watched_transport> transports;
  long next_id = 1;
};
registry& live() {
  static registry r;
  return r;
}

std::vector<watched_transport> snapshot() {
  auto& r = live();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<watched_transport> out;
  for (const auto& [id, t] : r.transports) out.push_back(t);
  return out;
}

int world_rank() {
  int initialized = 0, finalized = 0, rank = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::string join(const std::vector<int>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

/// "nccl with ranks 0, 2; cuda-ipc with rank 1"
std::string describe(const std::vector<watched_transport>& transports) {
  std::string s;
  for (const auto& t : transports) {
    if (!s.empty()) s += "; ";
    s += t.name + (t.peers.empty() ? " (no neighbours)" : (t.peers.size() == 1 ? " with rank " : " with ranks ") + join(t.peers));
  }
  return s;
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, s < 10 ? "%.1f" : "%.0f", s);
  return text;
}

/// The ranks of `comm` other than this one, in MPI_COMM_WORLD's numbering: "rank 1", or "one or
/// more of ranks 0, 2, 3" (the first 8). Who has not arrived at an allreduce is not known without
/// asking each rank, which the waits of setup do not pay for.
std::string other_ranks(MPI_Comm comm) {
  int size = 1, me = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &me);
  std::vector<int> ranks, world(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) ranks.push_back(r);
  MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_translate_ranks(group, size, ranks.data(), world_group, world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world_group);
  world.erase(world.begin() + me);
  if (world.empty()) return "no other rank";
  if (world.size() == 1) return "rank " + std::to_string(world[0]);
  constexpr std::size_t named = 8;
  const std::size_t n = world.size();
  if (n > named) world.resize(named);
  return "one or more of ranks " + join(world) + (n > named ? ", ... (" + std::to_string(n) + " in all)" : "");
}

long parse_long(const char* name, const char* value, long min) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || v < min)
    DSPMV_BAD_INPUT(name, value, "is not a whole number >= " + std::to_string(min));
  return v;
}

}  // namespace

double timeout_seconds() {
  static const double seconds = [] {
    const char* value = std::getenv("DISTSPMV_HALO_TIMEOUT");
    if (value == nullptr || *value == '\0') return default_timeout_s;
    char* end = nullptr;
    const double v = std::strtod(value, &end);
    if (end == value || *end != '\0' || !(v >= 0))
      DSPMV_BAD_INPUT("DISTSPMV_HALO_TIMEOUT", value, "is not a number of seconds >= 0 (0: no timeout)");
    return v;
  }();
  return seconds;
}

registration::registration(watched_transport t) {
  auto& r = live();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.next_id++;
  r.transports.emplace(id_, std::move(t));
}

registration::registration(registration&& other) noexcept : id_(std::exchange(other.id_, 0)) {}

registration& registration::operator=(registration&& other) noexcept {
  if (this != &other) {
    registration dropped(std::move(*this));
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

registration::~registration() {
  if (id_ == 0) return;
  auto& r = live();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.transports.erase(id_);
}

void wait_until(const std::function<bool()>& done, const std::function<std::string()>& what, bool name_transports) {
  if (done()) return;
  using clock = std::chrono::steady_clock;
  const double timeout = timeout_seconds();
  const auto start = clock::now();
  auto next_check = start;
  for (unsigned polls = 1; !done(); ++polls) {
    const auto now = clock::now();
    if (now >= next_check) {  // a few hundred checks a second: cheap next to the polling itself
      next_check = now + std::chrono::milliseconds(2);
      for (const auto& t : snapshot())
        if (t.failure)
          if (std::string failed = t.failure(); !failed.empty())
            abort_job("rank " + std::to_string(world_rank()) + ": the " + t.name + " transport failed (" + failed +
                      ") while this rank waited for " + what() + "; aborting the job");
      const double waited = std::chrono::duration<double>(now - start).count();
      if (timeout > 0 && waited > timeout) {
        const auto transports = snapshot();
        abort_job("rank " + std::to_string(world_rank()) + ": waited " + seconds_text(waited) + " s for " + what() +
                  (transports.empty() || !name_transports ? "" : " (halo transports: " + describe(transports) + ")") +
                  "; a neighbour stopped applying, failed or hangs; aborting the job (DISTSPMV_HALO_TIMEOUT=" +
                  seconds_text(timeout) + " s; 0 waits for ever)");
      }
    }
    if (polls % 64 == 0) std::this_thread::yield();  // spin first: most waits are a few microseconds
  }
}

namespace {

/// The setup-style wait: polls `done`, after a millisecond every 100 us; past the timeout aborts
/// the job with "rank R: waited S s " + what(waited) + the timeout.
void wait_slowly(const std::function<bool()>& done, const std::function<std::string()>& what) {
  if (done()) return;
  using clock = std::chrono::steady_clock;
  double timeout = default_timeout_s;
  try {
    timeout = timeout_seconds();
  } catch (const bad_input&) {  // collective_try reports it on every rank once this wait is over
  }
  const auto start = clock::now();
  for (unsigned polls = 1; !done(); ++polls) {
    const double waited = std::chrono::duration<double>(clock::now() - start).count();
    if (timeout > 0 && waited > timeout)
      abort_job("rank " + std::to_string(world_rank()) + ": waited " + seconds_text(waited) + " s " + what() +
                "; aborting the job (DISTSPMV_HALO_TIMEOUT=" + seconds_text(timeout) + " s; 0 waits for ever)");
    // Oversubscribed (CI runs 4 ranks on 2 cores), a spinning rank would slow the ones it waits for.
    if (waited > 1e-3)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    else if (polls % 64 == 0)
      std::this_thread::yield();
  }
}

}  // namespace

void wait_in_setup(const std::function<bool()>& done, const std::string& step, MPI_Comm comm) {
  wait_slowly(done, [&] {
    return (step.empty() ? std::string("at an unnamed agreement (collective_try)") : "in setup step '" + step + "'") +
           " for " + other_ranks(comm) + " (not arrived: stopped, failed outside the step, or hangs)";
  });
}

void wait_in_setup(MPI_Request& request, const std::string& step, MPI_Comm comm) {
  wait_in_setup(
      [&] {
        int done = 0;
        DSPMV_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      step, comm);
}

void wait_for_rank(const std::function<bool()>& done, const std::string& what) {
  wait_slowly(done, [&] { return "for " + what + " (stopped, failed or hangs)"; });
}

void wait_all(std::vector<MPI_Request>& requests, const std::vector<int>& peers, MPI_Comm comm,
              const std::string& transport) {
  if (requests.empty()) return;
  const int n = static_cast<int>(requests.size());
  wait_until(
      [&] {
        int flag = 0;
        DSPMV_MPI_CHECK(MPI_Testall(n, requests.data(), &flag, MPI_STATUSES_IGNORE));
        return flag != 0;
      },
      [&] {
        // The neighbours whose messages are still open (MPI_Request_get_status leaves them be).
        std::vector<int> open;
        for (int i = 0; i < n; ++i) {
          int flag = 1;
          if (requests[i] != MPI_REQUEST_NULL) MPI_Request_get_status(requests[i], &flag, MPI_STATUS_IGNORE);
          if (!flag) open.push_back(peers[i]);
        }
        std::sort(open.begin(), open.end());
        open.erase(std::unique(open.begin(), open.end()), open.end());
        int world = 0;
        MPI_Comm_compare(comm, MPI_COMM_WORLD, &world);
        return "the halo exchange (" + transport + ") with " + (open.size() == 1 ? "rank " : "ranks ") + join(open) +
               (world == MPI_IDENT || world == MPI_CONGRUENT ? "" : " of the matrix's communicator");
      },
      false);
}

void abort_job(const std::string& message) {
  std::fprintf(stderr, "distspmv: error: %s\n", message.c_str());
  std::fflush(stderr);
  for (const auto& t : snapshot())
    if (t.abort) t.abort();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

namespace {
/// DISTSPMV_FAULT_RANK (default: the last rank of `comm`) is this rank.
bool fault_rank_is_me(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const char* which = std::getenv("DISTSPMV_FAULT_RANK");
  const long target = which != nullptr && *which != '\0' ? parse_long("DISTSPMV_FAULT_RANK", which, 0) : size - 1;
  return rank == target;
}
}  // namespace

bool fault_injected(MPI_Comm comm, long& stop_after) {
  const char* after = std::getenv("DISTSPMV_FAULT_STOP_AFTER");
  if (after == nullptr || *after == '\0') return false;
  stop_after = parse_long("DISTSPMV_FAULT_STOP_AFTER", after, 0);
  return fault_rank_is_me(comm);
}

bool fault_in_setup(MPI_Comm comm, const std::string& step) {
  const char* name = std::getenv("DISTSPMV_FAULT_STOP_IN_SETUP");
  if (name == nullptr || *name == '\0' || step != name) return false;
  return fault_rank_is_me(comm);
}

void stop_in_setup(const std::string& step) {
  std::fprintf(stderr,
               "distspmv: fault injection (DISTSPMV_FAULT_STOP_IN_SETUP=%s): rank %d stops in setup step '%s'\n",
               step.c_str(), world_rank(), step.c_str());
  std::fflush(stderr);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

void stop_here(int rank, long applies) {
  std::fprintf(stderr,
               "distspmv: fault injection (DISTSPMV_FAULT_STOP_AFTER=%ld): rank %d stops inside its apply %ld\n",
               applies, rank, applies + 1);
  std::fflush(stderr);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace distspmv::dist::watchdog
