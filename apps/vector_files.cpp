// Vectors in and out of the command line (apps/vector_files.hpp).
#include "apps/vector_files.hpp"

#include <fmt/format.h>

#include <exception>

#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/setup/mpi_util.hpp"
#include "dist/watchdog.hpp"

namespace distspmv::app {

namespace {

constexpr int token_tag = 7319;  ///< the write token of write_vector_slices

/// The token from rank `from` (its slice is written), under the watchdog: a rank that stopped
/// writing ends the job with a message instead of leaving its successors waiting.
void wait_for_token(MPI_Comm comm, int from, int& ok, const std::string& spec) {
  MPI_Request request = MPI_REQUEST_NULL;
  DSPMV_MPI_CHECK(MPI_Irecv(&ok, 1, MPI_INT, from, token_tag, comm, &request));
  dist::watchdog::wait_for_rank(
      [&] {
        int done = 0;
        DSPMV_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      fmt::format("rank {} to write its slice of {}, the ranks writing in turn", from, spec));
}

}  // namespace

std::vector<double> read_vector_slice(MPI_Comm comm, const std::string& spec, global_index_type expected,
                                      const std::string& what, global_index_type first, global_index_type count,
                                      const io::vector_read_options& options) {
  std::vector<double> slice;
  dist::collective_try(comm, [&] {
    const io::vector_info info = io::describe_vector(spec, options);
    const std::string file = info.dataset.empty() ? info.path : info.path + ":" + info.dataset;
    if (info.length != expected)
      DSPMV_BAD_INPUT(
          file, "",
          fmt::format("has {} entries, the matrix has {} {}; expected {}", info.length, expected, what, expected));
    slice = io::read_vector_rows(spec, row_range{first, first + count}, options);
  });
  return slice;
}

void write_vector_slices(MPI_Comm comm, const std::string& spec, global_index_type length, global_index_type first,
                         const std::vector<double>& mine, const io::vector_write_options& options) {
  const int me = dist::comm_rank(comm), ranks = dist::comm_size(comm);
  io::vector_output out;
  dist::collective_try(comm, [&] {
    out = io::plan_vector_output(spec, length, options);
    if (me == 0) io::create_vector_file(out);
  });
  out.temporary = dist::allgather(out.temporary, comm).front();
  try {
    dist::collective_try(comm, "write vector", [&] {
      // A rank whose predecessor failed skips its write and passes the failure on; the lowest
      // failing rank's error is the one every rank throws.
      int ok = 1;
      if (me > 0) wait_for_token(comm, me - 1, ok, spec);
      std::exception_ptr failure;
      if (ok) {
        try {
          io::write_vector_slice(out, first, mine.data(), static_cast<global_index_type>(mine.size()));
        } catch (...) {
          failure = std::current_exception();
          ok = 0;
        }
      }
      if (me + 1 < ranks) DSPMV_MPI_CHECK(MPI_Send(&ok, 1, MPI_INT, me + 1, token_tag, comm));
      if (failure) std::rethrow_exception(failure);
    });
    dist::collective_try(comm, [&] {
      if (me == 0) io::commit_vector_file(out);
    });
  } catch (...) {
    if (me == 0) io::discard_vector_file(out);
    throw;
  }
}

}  // namespace distspmv::app
