#include "dist/setup/mpi_util.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "common/errors.hpp"
#include "dist/watchdog.hpp"

namespace distspmv::dist {
namespace {
std::int64_t g_max_message_elements = std::int64_t{1} << 30;

bool fits_int(const std::vector<std::int64_t>& counts) {
  std::int64_t sum = 0;
  for (auto c : counts) {
    if (c > std::numeric_limits<int>::max()) return false;
    sum += c;
  }
  return sum <= std::numeric_limits<int>::max();
}

std::vector<int> to_int(const std::vector<std::int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

std::vector<int> displacements(const std::vector<std::int64_t>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + static_cast<int>(counts[i - 1]);
  return d;
}
}  // namespace

int comm_rank(MPI_Comm comm) {
  int r = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &r));
  return r;
}

namespace {
int run_at_finalize(MPI_Comm, int, void*, void* fn) {
  reinterpret_cast<void (*)()>(fn)();
  return MPI_SUCCESS;
}
}  // namespace

void at_mpi_finalize(void (*fn)()) {
  int keyval = MPI_KEYVAL_INVALID;
  DSPMV_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_at_finalize, &keyval, reinterpret_cast<void*>(fn)));
  DSPMV_MPI_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr));
}

int comm_size(MPI_Comm comm) {
  int s = 0;
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &s));
  return s;
}

namespace {
/// Which class of the error hierarchy a failure had, so that every rank re-raises the same one.
enum class error_kind : int { generic = 0, bad_input = 1, not_compiled = 2, cuda = 3, mpi = 4 };

template <typename E>
[[noreturn]] void raise(E e) {
  e.mark_collective();
  throw e;
}

[[noreturn]] void raise_collective(error_kind kind, const std::string& message, const std::string& source,
                                   const std::string& where, const std::string& problem) {
  switch (kind) {
    case error_kind::bad_input: raise(bad_input(source, where, problem, __FILE__, __LINE__));
    case error_kind::not_compiled: raise(not_compiled(from_message, message, __FILE__, __LINE__));
    case error_kind::cuda: raise(cuda_error(from_message, message, __FILE__, __LINE__));
    case error_kind::mpi: raise(mpi_error(from_message, message, __FILE__, __LINE__));
    case error_kind::generic: break;
  }
  raise(error(message, __FILE__, __LINE__));
}

/// A step's name as a positive int (FNV-1a, 30 bits; 0 for unnamed), compared across ranks.
int step_tag(const std::string& name) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return name.empty() ? 0 : static_cast<int>(h & 0x3fffffffu) | 1;
}
}  // namespace

void collective_try(MPI_Comm comm, const std::function<void()>& step) { collective_try(comm, std::string(), step); }

void collective_try(MPI_Comm comm, const std::string& name, const std::function<void()>& step) {
  std::string message, source, where, problem;
  error_kind kind = error_kind::generic;
  bool failed = false;
  try {
    watchdog::timeout_seconds();  // a malformed DISTSPMV_HALO_TIMEOUT is agreed like any bad input
    if (!name.empty() && watchdog::fault_in_setup(comm, name)) watchdog::stop_in_setup(name);
    step();
  } catch (const bad_input& e) {
    failed = true;
    kind = error_kind::bad_input;
    message = e.what();
    source = e.source();
    where = e.where();
    problem = e.problem();
  } catch (const not_compiled& e) {
    failed = true;
    kind = error_kind::not_compiled;
    message = e.what();
  } catch (const cuda_error& e) {
    failed = true;
    kind = error_kind::cuda;
    message = e.what();
  } catch (const mpi_error& e) {
    failed = true;
    kind = error_kind::mpi;
    message = e.what();
  } catch (const std::exception& e) {
    failed = true;
    message = *e.what() ? e.what() : "unknown error";
  }
  const int me = comm_rank(comm), p = comm_size(comm);
  // One MIN over ranks: the lowest failing rank, the step's tag, and minus the tag (its MAX).
  // Non-blocking and polled, so that a rank that never arrives is reported, not waited for.
  const int tag = step_tag(name);
  int agreed[3] = {failed ? me : p, tag, -tag};
  MPI_Request request = MPI_REQUEST_NULL;
  DSPMV_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MIN, comm, &request));
  watchdog::wait_in_setup(request, name, comm);
  if (agreed[1] != -agreed[2])
    raise(error("rank " + std::to_string(me) + " at setup step '" + (name.empty() ? "(unnamed)" : name) +
                    "' met ranks at another step: the ranks ran different sequences of collectives (a bug of "
                    "distspmv; please report it with the command line)",
                __FILE__, __LINE__));
  const int first_failed = agreed[0];
  if (first_failed == p) return;

  // Broadcast the lowest failing rank's error: its kind, then its strings.
  int k = static_cast<int>(kind);
  DSPMV_MPI_CHECK(MPI_Bcast(&k, 1, MPI_INT, first_failed, comm));
  auto bcast_string = [&](std::string& s) {
    std::int64_t n = static_cast<std::int64_t>(s.size());
    DSPMV_MPI_CHECK(MPI_Bcast(&n, 1, MPI_INT64_T, first_failed, comm));
    s.resize(static_cast<std::size_t>(n));
    if (n > 0) DSPMV_MPI_CHECK(MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, first_failed, comm));
  };
  for (auto* s : {&message, &source, &where, &problem}) bcast_string(*s);
  if (p > 1 && static_cast<error_kind>(k) != error_kind::bad_input)
    message = "rank " + std::to_string(first_failed) + ": " + message;
  raise_collective(static_cast<error_kind>(k), message, source, where, problem);
}

void one_rank_per_gpu_at_a_time(MPI_Comm comm, const std::vector<int>& mates, const std::string& name,
                                const std::function<void()>& step) {
  const int me = comm_rank(comm);
  const auto at = std::find(mates.begin(), mates.end(), me);
  if (mates.size() <= 1 || at == mates.end()) {
    step();
    return;
  }
  const auto k = static_cast<std::size_t>(at - mates.begin());
  const bool last = k + 1 == mates.size();
  constexpr int tag_turn = 7302, tag_done = 7303;
  auto watched = [&](MPI_Request& request, const std::string& what) {
    watchdog::wait_for_rank(
        [&] {
          int done = 0;
          DSPMV_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
          return done != 0;
        },
        what + " on the GPU it shares with this rank (" + name + ")");
  };
  auto receive = [&](int from, int tag, const std::string& what) {
    int token = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    DSPMV_MPI_CHECK(MPI_Irecv(&token, 1, MPI_INT, from, tag, comm, &request));
    watched(request, "rank " + std::to_string(from) + what);
  };
  if (k > 0) receive(mates[k - 1], tag_turn, "'s turn");
  std::exception_ptr failure;
  try {
    step();
  } catch (...) {
    failure = std::current_exception();
  }
  // The turn passes to the next mate; the last tells the others that the turns are over.
  const std::vector<int> to = last ? std::vector<int>(mates.begin(), mates.end() - 1) : std::vector<int>{mates[k + 1]};
  const int token = 1;
  std::vector<MPI_Request> sent(to.size(), MPI_REQUEST_NULL);
  for (std::size_t j = 0; j < to.size(); ++j)
    DSPMV_MPI_CHECK(MPI_Isend(&token, 1, MPI_INT, to[j], last ? tag_done : tag_turn, comm, &sent[j]));
  for (auto& request : sent) watched(request, "a mate to take the token");
  if (!last) receive(mates.back(), tag_done, "'s turn, the last,");
  if (failure) std::rethrow_exception(failure);
}

void set_max_message_elements(std::int64_t n) { g_max_message_elements = std::max<std::int64_t>(1, n); }
std::int64_t max_message_elements() { return g_max_message_elements; }

void alltoallv_raw(const void* send, const std::vector<std::int64_t>& send_counts, void* recv,
                   const std::vector<std::int64_t>& recv_counts, MPI_Datatype type, std::size_t type_bytes,
                   MPI_Comm comm) {
  const int p = comm_size(comm);
  // Everyone must take the same path: agree on whether any count is too large.
  const std::int64_t limit = std::min<std::int64_t>(g_max_message_elements, std::numeric_limits<int>::max());
  std::int64_t mine_large = 0;
  for (int r = 0; r < p; ++r)
    if (send_counts[r] > limit || recv_counts[r] > limit) mine_large = 1;
  if (!fits_int(send_counts) || !fits_int(recv_counts)) mine_large = 1;
  if (allreduce_max(mine_large, comm) == 0) {
    DSPMV_MPI_CHECK(MPI_Alltoallv(send, to_int(send_counts).data(), displacements(send_counts).data(), type, recv,
                                  to_int(recv_counts).data(), displacements(recv_counts).data(), type, comm));
    return;
  }
  // Point to point in chunks of at most `limit` elements, addressed by byte offsets.
  std::vector<MPI_Request> requests;
  const auto* s = static_cast<const char*>(send);
  auto* d = static_cast<char*>(recv);
  std::int64_t send_off = 0, recv_off = 0;
  constexpr int tag = 7301;
  for (int r = 0; r < p; ++r) {
    for (std::int64_t done = 0; done < recv_counts[r]; done += limit) {
      const int n = static_cast<int>(std::min(limit, recv_counts[r] - done));
      requests.emplace_back();
      DSPMV_MPI_CHECK(MPI_Irecv(d + (recv_off + done) * type_bytes, n, type, r, tag, comm, &requests.back()));
    }
    recv_off += recv_counts[r];
  }
  for (int r = 0; r < p; ++r) {
    for (std::int64_t done = 0; done < send_counts[r]; done += limit) {
      const int n = static_cast<int>(std::min(limit, send_counts[r] - done));
      requests.emplace_back();
      DSPMV_MPI_CHECK(MPI_Isend(s + (send_off + done) * type_bytes, n, type, r, tag, comm, &requests.back()));
    }
    send_off += send_counts[r];
  }
  DSPMV_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
}

std::int64_t exscan_sum(std::int64_t mine, MPI_Comm comm, std::int64_t* total) {
  std::int64_t before = 0;
  DSPMV_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm));
  if (comm_rank(comm) == 0) before = 0;  // MPI leaves rank 0's result undefined
  if (total) DSPMV_MPI_CHECK(MPI_Allreduce(&mine, total, 1, MPI_INT64_T, MPI_SUM, comm));
  return before;
}

std::vector<std::int64_t> allreduce_sum(std::vector<std::int64_t> v, MPI_Comm comm) {
  if (!v.empty())
    DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_INT64_T, MPI_SUM, comm));
  return v;
}

std::int64_t allreduce_max(std::int64_t v, MPI_Comm comm) {
  std::int64_t out = 0;
  DSPMV_MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MAX, comm));
  return out;
}

double allreduce_max(double v, MPI_Comm comm) {
  double out = 0;
  DSPMV_MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm));
  return out;
}

std::vector<std::int64_t> allgather(std::int64_t mine, MPI_Comm comm) {
  std::vector<std::int64_t> all(comm_size(comm));
  DSPMV_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm));
  return all;
}

std::vector<std::string> allgather(const std::string& mine, MPI_Comm comm) {
  const auto lengths = allgather(static_cast<std::int64_t>(mine.size()), comm);
  std::vector<int> counts(lengths.begin(), lengths.end()), displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  std::string all(static_cast<std::size_t>(displs.back() + counts.back()), '\0');
  DSPMV_MPI_CHECK(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(),
                                 displs.data(), MPI_CHAR, comm));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < counts.size(); ++i) out.push_back(all.substr(displs[i], counts[i]));
  return out;
}

}  // namespace distspmv::dist
