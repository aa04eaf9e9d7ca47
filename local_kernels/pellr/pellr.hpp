// PELLR, permuted ELLPACK-R (seed 000: Wang & Gu, JCC 2020): the rows sorted by length, longest
// first (stable), then ELLR with one thread per row; the result is written through the
// permutation, y[perm[i]] = ...
//
// The paper keeps ELLR's arrays (every row padded to the global longest row K) and notes that rl
// may shrink to one entry per warp. Sorting puts rows of about equal length in the same warp, so
// its gain is eq. 1's iteration count: a warp runs as long as its longest row. We store each
// warp's 32 rows at the warp's own width (its first row's length, the longest in the warp), with
// a 64-bit offset per warp: the same iterations as the paper's layout, but 32 * N_iter stored
// entries instead of N * K (one row of 200000 entries among 3000 short ones costs one wide warp,
// not 3000 wide rows). rl stays per row, so each thread stops at its own row's end (ELLR).
//
//   sorted position i = 32 w + lane holds original row perm[i], with rl[i] entries
//   entry k of position i sits at   warp_ptr[w] + k * 32 + lane
//   width of warp w = (warp_ptr[w + 1] - warp_ptr[w]) / 32 = rl[32 w]
//
//   rows (lengths) r0 (2) r1 (4) r2 (1) r3 (4) r4 (3), warp of 4 for the picture:
//     perm = [1, 3, 4, 0 | 2]       rl = [4, 4, 3, 2 | 1]       warp_ptr = [0, 16, 20]
//     warp 0, k = 0:  r1_0 r3_0 r4_0 r0_0
//             k = 1:  r1_1 r3_1 r4_1 r0_1
//             k = 2:  r1_2 r3_2 r4_2  *
//             k = 3:  r1_3 r3_3  *    *
//     warp 1, k = 0:  r2_0  *    *    *       (* = padding; lanes past rows hold padding too)
//
// Invariants: perm is a permutation of 0..rows-1 with rl non-increasing along it, ties in
// original row order; warp_ptr has ceil(rows / 32) + 1 entries, non-decreasing, multiples of 32.
// Padding has the sentinel column (the row's last column, or 0 for an empty or missing row) and
// the value 0; neither SpMV reads it. Rows and perm are 32-bit (build throws past 2^31 - 1 rows).
// Statistics: n_iter is eq. 1 of seed 000 over the sorted rows (the sum of the warp widths),
// n_p = 32 * n_iter - nnz, the padding slots.
#pragma once

#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::pellr {

/// PELLR has no tunable parameter: the slice is the warp (32 rows), the sort is global.
struct pellr_params {};

/// Owning PELLR arrays (host).
template <typename ValueType>
struct pellr_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  std::vector<index_type> perm;        ///< [rows] original row of each sorted position
  std::vector<index_type> row_length;  ///< rl [rows], in sorted order
  std::vector<offset_type> warp_ptr{0};  ///< [warps + 1]
  std::vector<index_type> col_idx;     ///< [warp_ptr.back()], column-major within each warp
  std::vector<ValueType> values;
  pellr_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct pellr_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  const index_type* perm = nullptr;
  const index_type* row_length = nullptr;
  const offset_type* warp_ptr = nullptr;
  const index_type* col_idx = nullptr;
  const ValueType* values = nullptr;
};

/// Builds PELLR from CSR; deterministic, the input is not changed.
template <typename ValueType>
pellr_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const pellr_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): the same arrays as build() on
/// download_csr(a), bitwise, the same statistics and the same refusals (bad_input). `a` is only
/// read (the caller frees it).
template <typename ValueType>
device_built<pellr_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const pellr_params& params);

/// Back to CSR in the original row order (round-trip check).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const pellr_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y (beta == 0 overwrites y).
template <typename ValueType>
void spmv_reference(const pellr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta,
                    ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const pellr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// Traits for format_operator.
struct traits {
  using params = pellr_params;
  template <typename V>
  using matrix = pellr_matrix<V>;
  template <typename V>
  using view = pellr_view<V>;
  template <typename V, typename Map>
  static pellr_view<V> view_of(const pellr_matrix<V>& m, Map&& map) {
    pellr_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.perm = map(m.perm);
    v.row_length = map(m.row_length);
    v.warp_ptr = map(m.warp_ptr);
    v.col_idx = map(m.col_idx);
    v.values = map(m.values);
    return v;
  }
};

}  // namespace distspmv::pellr
