// Loading at scale (DESIGN.md §1): each rank reads or generates only its slice of rows.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "io/matrix_source.hpp"

namespace distspmv::dist {

/// This rank's rows of the caller's layout: global rows [first_row, first_row + rows.rows).
struct caller_slice {
  global_index_type global_rows = 0;
  global_index_type global_cols = 0;
  global_index_type first_row = 0;
  csr_matrix<double> rows;  ///< global column ids
};

/// Row ranges of the ranks when reading `source`: nnz-balanced from the row pointer for HDF5
/// (read by rank 0 only) and Matrix Market, equal row counts for generators (whose rows are of
/// about equal length, except R-MAT's; the partitioner rebalances nonzeros afterwards).
/// Collective; returns ranks + 1 boundaries.
std::vector<global_index_type> source_row_ranges(MPI_Comm comm, const std::string& source,
                                                 const io::source_options& options);

/// Reads this rank's slice. Matrix Market files have no row index: every rank parses the whole
/// file and keeps its slice (convert large matrices to HDF5). Collective; a failure on any rank
/// throws the same error on every rank.
caller_slice load_slice(MPI_Comm comm, const std::string& source, const io::source_options& options);

}  // namespace distspmv::dist
