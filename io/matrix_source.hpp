// One entry point for every matrix source: gen:..., .mtx, .mtx.gz, .h5/.hdf5/.mat, PETSc binary.
#pragma once

#include <cstdint>
#include <string>

#include "common/csr_matrix.hpp"

namespace distspmv::io {

struct source_options {
  bool allow_nonfinite = false;
  std::string h5_group;     ///< HDF5 group (empty: find it)
  std::uint64_t seed = 1;   ///< generator seed
};

struct source_info {
  std::string kind;  ///< "generator", "matrix-market", "hdf5", "petsc-binary"
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;  ///< exact for files and stencils, estimated for random generators
};

/// Which reader handles a source.
enum class source_format { generator, matrix_market, hdf5, petsc_binary };

/// Decides from the name and, for files, their first bytes; bad_input for a missing file or an
/// unknown format.
source_format detect_format(const std::string& source);

/// Size of the matrix without reading it all (Matrix Market: the header; symmetric nnz estimated
/// as 2 * entries).
source_info describe_source(const std::string& source, const source_options& options = {});

/// The whole matrix.
csr_matrix<double> read_matrix(const std::string& source, const source_options& options = {});

/// Rows [range.begin, range.end): generators, HDF5 and PETSc binary files touch only those rows
/// (PETSc: and the row lengths before or after them); Matrix Market files
/// are read whole and sliced (the format has no row index).
csr_matrix<double> read_matrix_rows(const std::string& source, row_range range,
                                    const source_options& options = {});

/// Writes by extension: .mtx, .mtx.gz, .h5/.hdf5, .petsc/.dat (PETSc binary, 32-bit integers
/// unless the sizes need 64). No partial file is left on failure.
void write_matrix(const std::string& path, const csr_matrix<double>& a);

}  // namespace distspmv::io
