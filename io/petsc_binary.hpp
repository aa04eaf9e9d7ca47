// PETSc binary files: what MatView and VecView write to a PETSC_VIEWER_BINARY (PetscViewerBinaryOpen)
// and MatLoad / VecLoad read (DESIGN.md §7).
//
// Every number is big-endian. PetscInt is 32 bits in PETSc's default build and 64 bits in one
// configured --with-64-bit-indices; every integer of the file, the class id included, has that
// width, so the first bytes tell the two apart (a 64-bit file starts with four zero bytes):
//
//   matrix (AIJ)   PetscInt MAT_FILE_CLASSID = 1211216, M (rows), N (cols), nz
//                  PetscInt row_lengths[M]
//                  PetscInt columns[nz]      0-based, sorted within each row as PETSc writes them
//                  double   values[nz]
//   vector         PetscInt VEC_FILE_CLASSID = 1211214, n
//                  double   values[n]
//
// Anything after the object (PETSc may append further objects to one file) is ignored, and so is
// the ".info" side file PETSc writes next to it. Values must be real doubles: files of a PETSc
// built with complex scalars (16 bytes per value) or single precision (4 bytes) are refused by
// name. A 32-bit file whose nz is 2^31 - 1 has its total taken from the row lengths: a count
// capped at the largest 32-bit PetscInt (as our writer caps it) still reads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::io {

/// What a PETSc binary file holds first.
enum class petsc_object { matrix, vector };

struct petsc_info {
  petsc_object object = petsc_object::matrix;
  int index_bytes = 4;           ///< width of PetscInt in the file: 4 or 8
  global_index_type rows = 0;    ///< matrix rows; vector length
  global_index_type cols = 0;    ///< matrix columns; 1 for a vector
  offset_type nnz = 0;           ///< matrix nonzeros; vector length
};

struct petsc_read_options {
  bool allow_nonfinite = false;  ///< accept NaN and Inf values
};

struct petsc_write_options {
  /// 64-bit integers, for a PETSc configured --with-64-bit-indices. Without it the file uses
  /// 32-bit integers (PETSc's default) unless the rows, columns or length do not fit them.
  bool index64 = false;
};

/// True when `head` (a file's first bytes, at least 8 of them for 64-bit files) starts with the
/// class id of a PETSc matrix or vector.
bool is_petsc_binary(std::string_view head);

/// Reads and checks the header (and, for a matrix, that the file is long enough for the arrays
/// it announces). `expected` set: a file holding the other kind of object is a bad_input.
petsc_info describe_petsc(const std::string& path);
petsc_info describe_petsc(const std::string& path, petsc_object expected);

/// The whole matrix: every row length, column and value checked.
csr_matrix<double> read_petsc_matrix(const std::string& path, const petsc_read_options& options = {});

/// Rows [range.begin, range.end) (global column ids). Reads the row lengths of the range and of
/// the shorter side before or after it (for the range's offset), then only the range's columns and
/// values, in pieces of at most 64 MiB.
csr_matrix<double> read_petsc_matrix_rows(const std::string& path, row_range range,
                                          const petsc_read_options& options = {});

/// The row pointer alone (rows + 1 entries, from every row length): for nnz-balanced splitting.
std::vector<offset_type> read_petsc_row_ptr(const std::string& path);

/// Writes a matrix as MatView would (sorted columns); under a temporary name renamed at the end,
/// so that a failure leaves no partial file.
void write_petsc_matrix(const std::string& path, const csr_matrix<double>& a, const petsc_write_options& options = {});

/// The whole vector.
std::vector<double> read_petsc_vector(const std::string& path, const petsc_read_options& options = {});

/// Entries [range.begin, range.end) of a vector.
std::vector<double> read_petsc_vector_rows(const std::string& path, row_range range,
                                           const petsc_read_options& options = {});

/// Writes a vector as VecView would; no partial file on failure.
void write_petsc_vector(const std::string& path, const std::vector<double>& x, const petsc_write_options& options = {});

/// The header write_petsc_vector writes for a vector of `length` entries; the values follow it,
/// 8 big-endian bytes each. For writers that fill the values in slices (io/vector_io.hpp).
std::string petsc_vector_header(global_index_type length, const petsc_write_options& options = {});

}  // namespace distspmv::io
