// HDF5 reader and writer (DESIGN.md §7).
//
// Native layout (readable by scipy + h5py, anndata, h5sparse):
//   group /A                       attributes: shape int64[2], encoding-type "csr_matrix",
//                                               encoding-version "0.1.0"
//     indptr   int64[rows + 1]
//     indices  int32 or int64 [nnz]   0-based, sorted within rows, unique
//     data     float64 or float32 [nnz]
// Also read: the PETSc/MATLAB v7.3 layout (datasets jc, ir, data; attribute MATLAB_sparse = rows;
// column-major, so it holds the transpose's CSR) and Binsparse CSR and COO groups (attribute
// `binsparse` with JSON: format, shape, data_types; datasets pointers_to_1, indices_0/1, values).
// A row range of the native and Binsparse CSR layouts is read by hyperslab, in pieces of at most
// 1 GiB, touching only that range.
#pragma once

#include <string>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::io {

/// Which layout a file holds.
enum class h5_layout { native_csr, matlab, binsparse_csr, binsparse_coo };

struct h5_info {
  h5_layout layout = h5_layout::native_csr;
  std::string group;  ///< the group holding the matrix ("/A" by default)
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  std::string index_type;  ///< "int32" or "int64"
  std::string value_type;  ///< "float64", "float32", "int64", ... or "pattern"
};

struct h5_read_options {
  /// Group to read; empty finds it: "/A", then the root, then the first group that holds a matrix.
  std::string group;
  bool allow_nonfinite = false;
};

struct h5_write_options {
  std::string group = "/A";
  bool index64 = false;  ///< int64 indices (default int32 when cols fit)
  bool float32 = false;  ///< float32 values
};

/// Opens the file, finds the matrix, checks dataset presence, dtypes and sizes.
h5_info read_hdf5_info(const std::string& path, const h5_read_options& options = {});

/// The whole matrix.
csr_matrix<double> read_hdf5(const std::string& path, const h5_read_options& options = {});

/// Rows [range.begin, range.end) only (global column ids). Validated like the whole matrix.
csr_matrix<double> read_hdf5_rows(const std::string& path, row_range range,
                                  const h5_read_options& options = {});

/// The row pointer (indptr) alone: rows + 1 int64 values. For nnz-balanced splitting.
std::vector<offset_type> read_hdf5_row_ptr(const std::string& path, const h5_read_options& options = {});

/// Writes the native layout; the file is written under a temporary name and renamed at the end.
void write_hdf5(const std::string& path, const csr_matrix<double>& a, const h5_write_options& options = {});

}  // namespace distspmv::io
