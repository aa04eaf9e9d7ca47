// libFuzzer target for the PETSc binary reader (io/petsc_binary.hpp).
//
// The fuzz bytes are the file: written to /dev/shm (a tmpfs) and read by name, since the reader
// works on a file descriptor (pread at offsets, fstat for the size). The contract under test:
//   * the only exception that may escape is distspmv::bad_input; no crash, no sanitizer report,
//     no hang, and no allocation beyond what the file's size justifies (the header is checked
//     against the size before anything is allocated: libFuzzer's -malloc_limit_mb catches more);
//   * describe_petsc, read_petsc_matrix, read_petsc_row_ptr and read_petsc_vector agree: a matrix
//     that reads has the shape the header announced, is a valid CSR, read_petsc_row_ptr gives its
//     row pointer (when no repeated columns were summed), and any row range read on its own
//     (read_petsc_matrix_rows, read_petsc_vector_rows) equals that slice of the whole;
//   * what is accepted is written back (write_petsc_matrix/_vector, both integer widths) and
//     reads back as the same matrix or vector.
// The last byte's low bit sets allow_nonfinite and its other bits, with the size, pick the row
// range; the file is every byte, the last included.
//
// Build: see tests/fuzz/CMakeLists.txt. Run:
//   fuzz_petsc_binary -dict=tests/fuzz/petsc_binary.dict WORK_DIR tests/fuzz/corpus_petsc
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "common/errors.hpp"
#include "io/petsc_binary.hpp"

namespace {

using distspmv::bad_input;
using distspmv::csr_matrix;
using distspmv::global_index_type;
using distspmv::row_range;
namespace io = distspmv::io;

std::string file_name, copy_name;  // set once in LLVMFuzzerInitialize

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_petsc_binary: %s\n", what.c_str());
  std::abort();
}

bool same_value(double a, double b) {
  return (a == b && std::signbit(a) == std::signbit(b)) || (std::isnan(a) && std::isnan(b));
}

bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same_value(a[k], b[k])) return false;
  return true;
}

bool same_matrix(const csr_matrix<double>& a, const csr_matrix<double>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         same_values(a.values, b.values);
}

void write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(name.c_str(), "wb");
  if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
    bug("cannot write " + name);
}

template <typename Call>
auto attempt(Call&& call) -> std::optional<decltype(call())> {
  try {
    return call();
  } catch (const bad_input&) {
    return std::nullopt;
  }
}

/// A range of [0, n) from the selector bits.
row_range pick_range(global_index_type n, std::uint64_t bits) {
  const auto begin = static_cast<global_index_type>(bits % static_cast<std::uint64_t>(n + 1));
  const auto end = begin + static_cast<global_index_type>((bits / 7) % static_cast<std::uint64_t>(n - begin + 1));
  return {begin, end};
}

void check_matrix(const csr_matrix<double>& a, const io::petsc_info& info, bool allow_nonfinite, std::uint64_t bits) {
  try {
    distspmv::validate_csr(a, "fuzz: read_petsc_matrix", allow_nonfinite);
  } catch (const bad_input& e) {
    bug(std::string("accepted an invalid matrix: ") + e.what());
  }
  if (a.rows != info.rows || a.cols != info.cols || a.nnz() > info.nnz)
    bug("the matrix differs from what describe_petsc announced");
  const auto ptr = attempt([] { return io::read_petsc_row_ptr(file_name); });
  if (!ptr) bug("read_petsc_matrix accepted the file, read_petsc_row_ptr refused it");
  if (a.nnz() == info.nnz && *ptr != a.row_ptr) bug("read_petsc_row_ptr differs from the matrix's row pointer");

  io::petsc_read_options options;
  options.allow_nonfinite = allow_nonfinite;
  const row_range range = pick_range(a.rows, bits);
  const auto part = attempt([&] { return io::read_petsc_matrix_rows(file_name, range, options); });
  if (!part) bug("read_petsc_matrix accepted the file, read_petsc_matrix_rows refused a range of it");
  if (!same_matrix(*part, distspmv::slice_rows(a, range))) bug("read_petsc_matrix_rows differs from the slice");

  io::petsc_write_options wide;
  wide.index64 = (bits & 1) != 0;
  io::write_petsc_matrix(copy_name, a, wide);
  io::petsc_read_options all;
  all.allow_nonfinite = true;
  const auto back = attempt([&] { return io::read_petsc_matrix(copy_name, all); });
  if (!back) bug("the writer's matrix does not read back");
  if (!same_matrix(a, *back)) bug("the matrix changed in a write/read round trip");
}

void check_vector(const std::vector<double>& x, bool allow_nonfinite, std::uint64_t bits) {
  io::petsc_read_options options;
  options.allow_nonfinite = allow_nonfinite;
  const row_range range = pick_range(static_cast<global_index_type>(x.size()), bits);
  const auto part = attempt([&] { return io::read_petsc_vector_rows(file_name, range, options); });
  if (!part) bug("read_petsc_vector accepted the file, read_petsc_vector_rows refused a range of it");
  if (!same_values(*part, std::vector<double>(x.begin() + range.begin, x.begin() + range.end)))
    bug("read_petsc_vector_rows differs from the slice");
  for (const double v : x)
    if (!allow_nonfinite && !std::isfinite(v)) bug("accepted a non-finite value");
  io::petsc_write_options wide;
  wide.index64 = (bits & 1) != 0;
  io::write_petsc_vector(copy_name, x, wide);
  io::petsc_read_options all;
  all.allow_nonfinite = true;
  const auto back = attempt([&] { return io::read_petsc_vector(copy_name, all); });
  if (!back || !same_values(x, *back)) bug("the vector changed in a write/read round trip");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  file_name = std::string(dir) + "/fuzz_petsc." + std::to_string(getpid()) + ".petsc";
  copy_name = file_name + ".copy";
  std::atexit([] {
    std::remove(file_name.c_str());
    std::remove(copy_name.c_str());
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_file(file_name, data, size);
  const std::uint8_t last = size > 0 ? data[size - 1] : 0;
  const bool allow_nonfinite = (last & 1) != 0;
  const std::uint64_t bits = (std::uint64_t{last} >> 1) * 2654435761u + size;

  const auto info = attempt([] { return io::describe_petsc(file_name); });
  if (!info) return 0;
  if (info->rows < 0 || info->cols < 0 || info->nnz < 0) bug("describe_petsc gave a negative size");
  if (io::is_petsc_binary(std::string_view(reinterpret_cast<const char*>(data), size)) == false)
    bug("describe_petsc accepted a file is_petsc_binary does not recognise");

  io::petsc_read_options options;
  options.allow_nonfinite = allow_nonfinite;
  if (info->object == io::petsc_object::matrix) {
    if (attempt([] { return io::read_petsc_vector(file_name); })) bug("a matrix file read as a vector");
    const auto a = attempt([&] { return io::read_petsc_matrix(file_name, options); });
    if (a) check_matrix(*a, *info, allow_nonfinite, bits);
  } else {
    if (attempt([] { return io::read_petsc_matrix(file_name); })) bug("a vector file read as a matrix");
    const auto x = attempt([&] { return io::read_petsc_vector(file_name, options); });
    if (x) {
      if (static_cast<global_index_type>(x->size()) != info->rows) bug("the vector's length differs from its header");
      check_vector(*x, allow_nonfinite, bits);
    }
  }
  return 0;
}
