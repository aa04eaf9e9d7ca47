// Vectors in and out of the command line (--x, --output; solve's --rhs, --output): every rank
// reads or writes only its own slice of the caller's row order (io/vector_io.hpp), and a bad file
// is the same error on every rank.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "common/types.hpp"
#include "io/vector_io.hpp"

namespace distspmv::app {

/// Collective: entries [first, first + count) of the vector in `spec` on each rank, after checking
/// that it holds `expected` entries (`what`, e.g. "columns", names what the matrix has that many
/// of, for the message).
std::vector<double> read_vector_slice(MPI_Comm comm, const std::string& spec, global_index_type expected,
                                      const std::string& what, global_index_type first, global_index_type count,
                                      const io::vector_read_options& options);

/// Collective: writes a vector of `length` entries, each rank its slice `mine` = entries
/// [first, first + mine.size()) (slices of the ranks disjoint, covering [0, length)). Rank 0
/// creates the file at its full size under a temporary name; the ranks write their slices in rank
/// order, one at a time (a token passed along: serial HDF5 allows one writer), each holding only
/// its own slice; rank 0 renames the file into place. No partial file is left on failure.
void write_vector_slices(MPI_Comm comm, const std::string& spec, global_index_type length, global_index_type first,
                         const std::vector<double>& mine, const io::vector_write_options& options);

}  // namespace distspmv::app
