// Pieces shared by the readers that take rows straight from a file's CSR arrays (HDF5, PETSc
// binary; internal to io/ and its tests): buffers the kernel may back with huge pages, the one
// fused check of the rows read, and the repair of rows a foreign writer left unsorted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "common/csr_matrix.hpp"

namespace distspmv::io::detail {

/// Passes over fewer entries stay on one thread (OpenMP's start-up would cost more).
inline constexpr std::size_t parallel_entries = std::size_t{1} << 18;

/// n value-initialized elements in memory the kernel may back with 2 MiB transparent huge pages.
/// First-touch page faults dominate a read from the page cache otherwise: on the dev VM (THP mode
/// "madvise", the Debian/Ubuntu default) reading 200k x 16 took 0.21 s with 4 KiB pages and
/// 0.02 s with huge pages. Two steps get there:
///  - the capacity is padded so that malloc's mapping is a whole number of 2 MiB (glibc maps large
///    blocks with a 16-byte header at the start and rounds to 4 KiB), which Linux 6.7+ places on
///    a 2 MiB boundary, so every page of the buffer, the first included, can be huge;
///  - the advice goes on the reserved, still untouched range before resize() faults it in.
/// Both only advise: on other allocators or kernels the buffer is an ordinary one. The huge pages
/// also spare the TLB in the SpMV that uses the matrix.
template <typename T>
std::vector<T> make_buffer(std::size_t n) {
  std::vector<T> v;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t huge_page = std::size_t{2} << 20, small_page = 4096, header = 16;
  const std::size_t bytes = n * sizeof(T);
  if (bytes >= huge_page) {
    const std::size_t mapping = (bytes + small_page + huge_page - 1) / huge_page * huge_page;
    v.reserve((mapping - small_page) / sizeof(T));
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const auto end = begin + v.capacity() * sizeof(T);
    // From the 2 MiB boundary just below when that is our own block's header, else the next one.
    std::uintptr_t first = begin & ~std::uintptr_t{huge_page - 1};
    if (begin - first > header) first += huge_page;
    const std::uintptr_t last = (end + huge_page - 1) & ~std::uintptr_t{huge_page - 1};
    const std::uintptr_t stop = last - end < small_page ? last : end & ~std::uintptr_t{huge_page - 1};
    if (stop > first) madvise(reinterpret_cast<void*>(first), stop - first, MADV_HUGEPAGE);
  }
#endif
  v.resize(n);
  return v;
}

/// Where the rows came from, for messages: "FILE: WHERE: problem".
struct entry_places {
  std::string path;     ///< the file
  std::string columns;  ///< e.g. "dataset /A/indices", "column indices"
  std::string values;   ///< e.g. "dataset /A/data", "values"
};

/// True when the columns of every row are strictly increasing.
bool rows_canonical(const csr_matrix<double>& a);

/// Sorts each row by column and sums repeated columns, in place (stable: repeated entries add in
/// file order, so the rounding is reproducible). Foreign writers (scipy before sort_indices(),
/// MATLAB with repeated entries, COO in any order) leave rows unsorted; our own files never need
/// this, so callers first check (cheaply) whether it is needed.
void sort_and_sum_rows(csr_matrix<double>& a);

/// One pass over rows just read (row r of `a` is row first_row + r of the file): every column in
/// [0, a.cols), every value finite unless allow_nonfinite; returns whether every row is already
/// sorted and unique. Fused because every separate pass over a large matrix's indices and values
/// costs as much as reading them from the page cache. Throws bad_input for the first bad row.
bool check_csr_entries(const csr_matrix<double>& a, global_index_type first_row, bool allow_nonfinite,
                       const entry_places& places);

/// sort_and_sum_rows, then, unless allow_nonfinite, a check that no sum overflowed: finite
/// repeated entries (1e308 twice) can add up to Inf, which a check of the file's values before
/// summing does not see (found by tests/fuzz/fuzz_hdf5). bad_input names the row and column.
void sum_repeated_columns(csr_matrix<double>& a, global_index_type first_row, bool allow_nonfinite,
                          const entry_places& places);

/// check_csr_entries, then sum_repeated_columns where some row needs it.
void finish_csr_rows(csr_matrix<double>& a, global_index_type first_row, bool allow_nonfinite,
                     const entry_places& places);

/// Throws bad_input(path, where, ...) at the first NaN or Inf of `values` unless allow_nonfinite;
/// values[k] is entry first_entry + k of the file.
void check_finite(const std::vector<double>& values, std::int64_t first_entry, bool allow_nonfinite,
                  const std::string& path, const std::string& where);

}  // namespace distspmv::io::detail
