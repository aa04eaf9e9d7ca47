// Dense vectors in files: the x given to `distspmv --x` and the y written by `--output` (or b and
// the solution of `distspmv solve`), entry i being global row i of the matrix file.
//
//   HDF5          one dataset of any integer or float type, 1-D (N x 1 and 1 x N are accepted).
//                 "FILE.h5:/path/to/dataset" names it. Without a name the reader takes the
//                 dataset named by `default_dataset` ("x", "b") when the root has it, else the
//                 only such dataset in the file; the writer writes `default_dataset` ("y").
//   NumPy .npy    format versions 1.0, 2.0 and 3.0; dtype '<f8' or '<f4'; shape (N,), (N, 1) or
//                 (1, N) (the same bytes in C or Fortran order). Written as version 1.0, '<f8'
//                 (or '<f4'), shape (N,), as numpy.save writes it.
//   PETSc binary  VecView's layout (io/petsc_binary.hpp): big-endian doubles.
//
// Reading tells the format by the file's first bytes, then by its extension (so that a damaged
// "x.npy" gets the .npy reader's message); writing goes by the extension: .h5/.hdf5, .npy,
// .petsc/.dat (case-insensitive).
//
// Any range of entries reads alone (HDF5 hyperslab, pread at its offset). Writing is split so
// that each rank can write only its own slice, with no MPI here: plan_vector_output() (pure:
// every rank computes the same plan), create_vector_file() (one process: the whole file at its
// final size under a temporary name beside the target), write_vector_slice() (any process, one
// at a time for HDF5, which is serial), commit_vector_file() (renames it into place) or
// discard_vector_file(). No partial file is ever left under the target name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace distspmv::io {

/// The kinds of vector file (see above).
enum class vector_format { hdf5, npy, petsc_binary };

/// "hdf5", "npy", "petsc-binary".
const char* to_string(vector_format f);

/// A vector file name with an optional HDF5 dataset: "y.h5:/out/y" -> {"y.h5", "/out/y"}.
/// The name is split at its last ":/" unless a file of the whole name exists.
struct vector_spec {
  std::string path;
  std::string dataset;  ///< empty: the reader's or writer's default
};
vector_spec split_vector_spec(const std::string& spec);

/// What describe_vector finds in a file.
struct vector_info {
  vector_format format = vector_format::npy;
  std::string path;
  std::string dataset;  ///< HDF5: the dataset (absolute path) that is read
  global_index_type length = 0;
  std::string value_type;  ///< "float64", "float32", "int32", ...
};

/// How to read a vector file.
struct vector_read_options {
  std::string default_dataset = "x";  ///< HDF5 without a dataset name (see above)
  bool allow_nonfinite = false;       ///< accept NaN and Inf entries
};

/// Format, length and type, from the header (HDF5: the dataset's metadata). bad_input for a
/// missing or damaged file, naming the file and the problem.
vector_info describe_vector(const std::string& spec, const vector_read_options& options = {});

/// Entries [range.begin, range.end), as double, touching only those in the file.
std::vector<double> read_vector_rows(const std::string& spec, row_range range, const vector_read_options& options = {});

/// The whole vector.
std::vector<double> read_vector(const std::string& spec, const vector_read_options& options = {});

/// How to write a vector file.
struct vector_write_options {
  std::string default_dataset = "y";  ///< HDF5 without a dataset name
  bool float32 = false;               ///< HDF5 and .npy store float32 (PETSc binary: always double)
};

/// A vector file being written (see the top of this file).
struct vector_output {
  std::string path;  ///< the target
  vector_format format = vector_format::npy;
  std::string dataset;  ///< HDF5: absolute path of the dataset
  global_index_type length = 0;
  bool float32 = false;       ///< entries stored as float32
  std::uint64_t data_at = 0;  ///< .npy, PETSc: byte offset of entry 0
  std::string temporary;      ///< set by create_vector_file: the file being written
};

/// Checks the name (extension, dataset) and lays the file out; touches no file.
vector_output plan_vector_output(const std::string& spec, global_index_type length,
                                 const vector_write_options& options = {});

/// Creates the temporary file, header written and entries' room reserved; sets out.temporary.
void create_vector_file(vector_output& out);

/// Entries [first, first + count) into the temporary file.
void write_vector_slice(const vector_output& out, global_index_type first, const double* values,
                        global_index_type count);

/// Renames the temporary file over the target.
void commit_vector_file(const vector_output& out);

/// Removes the temporary file (after a failure); never throws.
void discard_vector_file(const vector_output& out) noexcept;

/// All of the above for a whole vector in one process.
void write_vector(const std::string& spec, const std::vector<double>& values, const vector_write_options& options = {});

}  // namespace distspmv::io
