// One entry point for every matrix source: dispatch to the generators and the Matrix Market,
// HDF5 and PETSc binary readers.
//
// The format is told by the "gen:" prefix, then by the extension (case-insensitive on reading:
// .mtx, .mtx.gz, .h5, .hdf5, .mat, .petsc), then, for any other name, by the first bytes of the
// file, so that a matrix saved as "A.data", "A.gz" or "A.dat" (PETSc's habit) still opens.
// Writing goes by the (lower-case) extension alone, since there are no bytes to look at yet.
#include "io/detail/file_names.hpp"
#include "io/matrix_source.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "io/generators.hpp"
#include "io/hdf5_io.hpp"
#include "io/matrix_market.hpp"
#include "io/petsc_binary.hpp"

namespace distspmv::io {

namespace {

constexpr const char* expected_formats = "expected .mtx, .mtx.gz, .h5, a PETSc binary file or gen:KIND:ARGS";
constexpr const char* output_formats = "expected a path ending in .mtx, .mtx.gz, .h5, .hdf5, .petsc or .dat";

using detail::ends_with;
using detail::lower;

/// Up to `n` bytes of the file from `offset` (fewer at its end; empty when unreadable: the
/// reader that gets the file then reports why).
std::string read_bytes(const std::string& path, std::uintmax_t offset, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in || !in.seekg(static_cast<std::streamoff>(offset))) return {};
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

/// HDF5's superblock signature sits at 0 or after a user block of 512, 1024, 2048, ... bytes
/// (MATLAB v7.3 files have a 512-byte one).
bool has_hdf5_signature(const std::string& path, std::uintmax_t size) {
  static const std::string signature("\x89HDF\r\n\x1a\n", 8);
  for (std::uintmax_t at = 0; at + signature.size() <= size; at = at == 0 ? 512 : 2 * at)
    if (read_bytes(path, at, signature.size()) == signature) return true;
  return false;
}

bool has_gzip_magic(const std::string& head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
}

bool has_matrix_market_banner(const std::string& head) {
  static const std::string banner = "%%matrixmarket";
  return head.size() >= banner.size() && lower(head.substr(0, banner.size())) == banner;
}


h5_read_options hdf5_options(const source_options& options) {
  h5_read_options h5;
  h5.group = options.h5_group;
  h5.allow_nonfinite = options.allow_nonfinite;
  return h5;
}

mm_read_options matrix_market_options(const source_options& options) {
  mm_read_options mm;
  mm.allow_nonfinite = options.allow_nonfinite;
  return mm;
}

petsc_read_options petsc_options(const source_options& options) {
  petsc_read_options petsc;
  petsc.allow_nonfinite = options.allow_nonfinite;
  return petsc;
}

void check_range(const std::string& source, row_range range, global_index_type rows) {
  if (range.begin < 0 || range.end < range.begin || range.end > rows)
    DSPMV_BAD_INPUT(source, "row range", "[" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                                             ") is not within [0, " + std::to_string(rows) + ")");
}

}  // namespace

source_format detect_format(const std::string& source) {
  if (is_generator(source)) return source_format::generator;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(source, ec);
  if (!fs::exists(status)) DSPMV_BAD_INPUT(source, "", "no such file");
  if (fs::is_directory(status)) DSPMV_BAD_INPUT(source, "", "is a directory, " + std::string(expected_formats));
  const std::string name = lower(source);
  if (ends_with(name, ".mtx") || ends_with(name, ".mtx.gz")) return source_format::matrix_market;
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5")) return source_format::hdf5;
  if (ends_with(name, ".petsc")) return source_format::petsc_binary;
  const std::uintmax_t size = fs::file_size(source, ec);
  const bool hdf5 = !ec && has_hdf5_signature(source, size);
  if (ends_with(name, ".mat")) {
    // Only v7.3 .mat files are HDF5; older ones use MATLAB's own format, which we do not read.
    if (!hdf5)
      DSPMV_BAD_INPUT(source, "", "not a MATLAB v7.3 (HDF5) file: save it with save -v7.3 or convert it to .mtx");
    return source_format::hdf5;
  }
  if (hdf5) return source_format::hdf5;
  const std::string head = read_bytes(source, 0, 64);
  // The Matrix Market reader tells gzip from plain text by the same magic bytes.
  if (has_gzip_magic(head) || has_matrix_market_banner(head)) return source_format::matrix_market;
  if (is_petsc_binary(head)) return source_format::petsc_binary;
  DSPMV_BAD_INPUT(source, "", std::string("unknown matrix format, ") + expected_formats);
}

source_info describe_source(const std::string& source, const source_options& options) {
  source_info info;
  switch (detect_format(source)) {
    case source_format::generator: {
      const generator_info g = describe_generator(source);
      info.kind = "generator";
      info.rows = g.rows;
      info.cols = g.cols;
      info.nnz = g.nnz_estimate;
      break;
    }
    case source_format::matrix_market: {
      const mm_header h = read_matrix_market_header(source);
      info.kind = "matrix-market";
      info.rows = h.rows;
      info.cols = h.cols;
      // A symmetric file stores one triangle; expanded, each off-diagonal entry counts twice.
      // Without reading the entries the diagonal is unknown, hence the estimate.
      info.nnz = h.symmetry == "general" ? h.entries : 2 * h.entries;
      break;
    }
    case source_format::hdf5: {
      const h5_info h = read_hdf5_info(source, hdf5_options(options));
      info.kind = "hdf5";
      info.rows = h.rows;
      info.cols = h.cols;
      info.nnz = h.nnz;
      break;
    }
    case source_format::petsc_binary: {
      const petsc_info p = describe_petsc(source, petsc_object::matrix);
      info.kind = "petsc-binary";
      info.rows = p.rows;
      info.cols = p.cols;
      info.nnz = p.nnz;
      break;
    }
  }
  return info;
}

csr_matrix<double> read_matrix(const std::string& source, const source_options& options) {
  switch (detect_format(source)) {
    case source_format::generator: return generate(source, options.seed);
    case source_format::matrix_market: return read_matrix_market(source, matrix_market_options(options));
    case source_format::hdf5: return read_hdf5(source, hdf5_options(options));
    case source_format::petsc_binary: return read_petsc_matrix(source, petsc_options(options));
  }
  return {};  // unreachable: detect_format returns one of the above or throws
}

csr_matrix<double> read_matrix_rows(const std::string& source, row_range range, const source_options& options) {
  switch (detect_format(source)) {
    case source_format::generator: return generate_rows(source, range, options.seed);
    case source_format::hdf5:
      // Checked here too so that every kind of source reports a bad range as bad_input.
      check_range(source, range, read_hdf5_info(source, hdf5_options(options)).rows);
      return read_hdf5_rows(source, range, hdf5_options(options));
    case source_format::petsc_binary:
      check_range(source, range, describe_petsc(source, petsc_object::matrix).rows);
      return read_petsc_matrix_rows(source, range, petsc_options(options));
    case source_format::matrix_market: {
      const csr_matrix<double> a = read_matrix_market(source, matrix_market_options(options));
      check_range(source, range, a.rows);
      return slice_rows(a, range);
    }
  }
  return {};  // unreachable
}

void write_matrix(const std::string& path, const csr_matrix<double>& a) {
  if (is_generator(path))
    DSPMV_BAD_INPUT(path, "", std::string("cannot write to a generator spec, ") + output_formats);
  // Lower-case only: the Matrix Market writer compresses exactly the names ending in ".gz".
  if (ends_with(path, ".mtx") || ends_with(path, ".mtx.gz")) {
    write_matrix_market(path, a);
  } else if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) {
    write_hdf5(path, a);
  } else if (ends_with(path, ".petsc") || ends_with(path, ".dat")) {
    write_petsc_matrix(path, a);
  } else {
    DSPMV_BAD_INPUT(path, "", std::string("unknown output format, ") + output_formats);
  }
}

}  // namespace distspmv::io
