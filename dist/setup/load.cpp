#include "dist/setup/load.hpp"

#include "dist/setup/mpi_util.hpp"
#include "io/generators.hpp"
#include "io/hdf5_io.hpp"
#include "io/petsc_binary.hpp"
#include "io/row_split.hpp"

namespace distspmv::dist {
namespace {

std::vector<global_index_type> boundaries(const std::vector<row_range>& ranges) {
  std::vector<global_index_type> b{0};
  for (const auto& r : ranges) b.push_back(r.end);
  return b;
}

}  // namespace

std::vector<global_index_type> source_row_ranges(MPI_Comm comm, const std::string& source,
                                                 const io::source_options& options) {
  const int p = comm_size(comm);
  std::vector<global_index_type> b(p + 1, 0);
  collective_try(comm, "read", [&] {
    if (comm_rank(comm) != 0) return;
    switch (io::detect_format(source)) {
      case io::source_format::generator:
        b = boundaries(io::split_rows_evenly(io::describe_generator(source).rows, p));
        break;
      case io::source_format::hdf5: {
        io::h5_read_options h5;
        h5.group = options.h5_group;
        b = boundaries(io::split_rows_by_nnz(io::read_hdf5_row_ptr(source, h5), p));
        break;
      }
      case io::source_format::petsc_binary:
        b = boundaries(io::split_rows_by_nnz(io::read_petsc_row_ptr(source), p));
        break;
      case io::source_format::matrix_market:
        b = boundaries(io::split_rows_evenly(io::describe_source(source, options).rows, p));
        break;
    }
  });
  DSPMV_MPI_CHECK(MPI_Bcast(b.data(), p + 1, MPI_INT64_T, 0, comm));
  return b;
}

caller_slice load_slice(MPI_Comm comm, const std::string& source, const io::source_options& options) {
  io::source_format format{};
  collective_try(comm, "read", [&] { format = io::detect_format(source); });
  caller_slice s;
  if (format == io::source_format::matrix_market) {
    // No row index: parse once per rank, split by nonzeros, keep this rank's rows.
    csr_matrix<double> a;
    collective_try(comm, "read", [&] { a = io::read_matrix(source, options); });
    const auto ranges = io::split_rows_by_nnz(a.row_ptr, comm_size(comm));
    const row_range mine = ranges[comm_rank(comm)];
    s.global_rows = a.rows;
    s.global_cols = a.cols;
    s.first_row = mine.begin;
    s.rows = slice_rows(a, mine);
    return s;
  }
  const auto b = source_row_ranges(comm, source, options);
  const int me = comm_rank(comm);
  collective_try(comm, "read", [&] {
    const auto info = io::describe_source(source, options);
    s.global_rows = info.rows;
    s.global_cols = info.cols;
    s.first_row = b[me];
    s.rows = io::read_matrix_rows(source, row_range{b[me], b[me + 1]}, options);
  });
  return s;
}

}  // namespace distspmv::dist
