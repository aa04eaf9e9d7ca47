// A band matrix generated directly in GPU memory, and a plain reference SpMV on it: what the
// big-block test (tests/local_kernels/big_block_test.cpp) needs to run every format on a block
// of more than 2^31 nonzeros without ever holding the matrix on the host.
//
// The matrix: `rows` x `rows`, row r holds the columns r + o for the 27 offsets
//   o = dx + n*dy + n*n*dz,  dx, dy, dz in {-1, 0, 1},  n = max(3, round(cbrt(rows)))
// that fall inside [0, rows) (a 27-point stencil's diagonals on an n^3-like grid, clipped only
// at the matrix edges), so every row has at most 27 entries, the block has exactly 27 diagonals
// (HDIA applies) and rows have nearly equal lengths (the ELL formats apply with little padding).
// a(r, c) and x(i) are hashes mapped to [-1, 1), so any result can be checked.
//
// With hub_rows, every `every`-th row (0, every, 2 every, ...) also holds the `entries` columns
// r + 2 .. r + 1 + entries (within the matrix, between the band's offsets 1 and n - 1): a long
// row in each block of equal ones, which formats that cap a slice's width (sell-w's top-slice
// spill) store apart.
//
// Plain C++ (no CUDA header); big_matrix_cuda.cu implements it, the CUDA stubs throw
// not_compiled. Test support only: nothing in the library calls it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "local_kernels/device_csr.hpp"

namespace distspmv::big_matrix {

constexpr int band_width = 27;

/// The 27 column offsets of the band, ascending (n >= 3 keeps them distinct and ordered by
/// dz, dy, dx).
inline std::array<global_index_type, band_width> band_offsets(global_index_type rows) {
  const double cbrt_rows = std::cbrt(static_cast<double>(std::max<global_index_type>(rows, 1)));
  const global_index_type n = std::max<global_index_type>(3, std::llround(cbrt_rows));
  std::array<global_index_type, band_width> o{};
  int k = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) o[k++] = dx + n * dy + n * n * dz;
  return o;
}

/// Long rows added to the band (none by default).
struct hub_rows {
  global_index_type every = 0;  ///< rows 0, every, 2 every, ... are long (0: none)
  offset_type entries = 0;      ///< columns added to each, before clipping at the matrix's end
};

/// The entries hub row r gets: its run r + 2 .. r + 1 + entries clipped to the matrix, and none
/// where the run would reach the band's offset n - 1 (tiny matrices).
inline offset_type hub_extra(global_index_type r, global_index_type rows, const hub_rows& h) {
  const global_index_type n = band_offsets(rows)[band_width / 2 + 2] + 1;  // offset n - 1, + 1
  if (h.every <= 0 || h.entries <= 0 || r % h.every != 0 || h.entries + 2 >= n - 1) return 0;
  return std::clamp<offset_type>(rows - (r + 2), 0, h.entries);
}

/// Nonzeros of the band matrix: offset o keeps rows - |o| entries (none when |o| >= rows), plus
/// the hub rows' runs.
inline offset_type band_nnz(global_index_type rows, const hub_rows& hubs = {}) {
  offset_type nnz = 0;
  for (const global_index_type o : band_offsets(rows)) nnz += std::max<global_index_type>(0, rows - (o < 0 ? -o : o));
  if (hubs.every > 0)
    for (global_index_type r = 0; r < rows; r += hubs.every) nnz += hub_extra(r, rows, hubs);
  return nnz;
}

/// Bytes of the generated CSR in double: 64-bit offsets, 32-bit columns, values.
inline std::size_t band_csr_bytes(global_index_type rows) {
  return static_cast<std::size_t>(rows + 1) * sizeof(offset_type) +
         static_cast<std::size_t>(band_nnz(rows)) * (sizeof(index_type) + sizeof(double));
}

/// The band matrix in GPU memory (rows < 2^31: columns are 32-bit), with `hubs`' long rows.
/// Synchronous. Throws bad_input when the GPU has too little memory (device_storage).
device_csr<double> generate_band_csr(global_index_type rows, const hub_rows& hubs = {});

/// x[i] = a hash of (seed, i) in [-1, 1), for i < n. Synchronous.
void fill_hash(double* x, global_index_type n, std::uint64_t seed);

/// y[i] = value for i < n (NaN, to see that an apply with beta = 0 overwrites y). Synchronous.
void fill_value(double* y, global_index_type n, double value);

/// The obviously correct SpMV: one thread per row, 64-bit offsets, double sums in column order.
/// y[r] = sum a(r, c) x(c); abs_sum[r] = sum |a(r, c) x(c)| (the scale of row r's rounding
/// error). Synchronous.
void reference_spmv(const device_csr_view<double>& a, const double* x, double* y, double* abs_sum);

/// Outcome of compare_rows.
struct row_check {
  offset_type bad_rows = 0;            ///< rows with |y - y_ref| > tol * abs_sum, or y not finite
  double worst = 0;                    ///< largest |y - y_ref| / abs_sum (inf for NaN)
  global_index_type first_bad_row = -1;  ///< smallest bad row, -1 when none
};

/// Compares y with y_ref row by row on the GPU (no host copy of either). Synchronous.
row_check compare_rows(const double* y, const double* y_ref, const double* abs_sum, global_index_type rows,
                       double tol);

}  // namespace distspmv::big_matrix
