// ELLPACK-R and ELLR-T (seed 001: Vázquez, Ortega, Fernández, Garzón, CIT 2010): column-major
// ELL plus a row-length array rl, with T in {1, 2, 4, 8} threads per row.
//
// Layout. The ELL part stores every row padded to one width K (the longest row, rounded up to a
// multiple of T) in "stripes" of T consecutive entries per row; stripe after stripe, row after
// row inside a stripe. T = 1 is plain column-major ELL. Rows are padded to a multiple of 32 so
// that every stripe starts aligned.
//
//   rows_padded = rows rounded up to 32        stripe = rows_padded * T entries
//   entry k of row r sits at   (k / T) * stripe + r * T + (k % T)      (64-bit arithmetic)
//
//   T = 2, rows a, b, c, d with 4, 3, 1, 3 entries, K = 4, rl = [4, 3, 1, 3]  (* = padding)
//
//     stripe 0:  a0 a1 | b0 b1 | c0 *  | d0 d1 | * * | ... up to rows_padded
//     stripe 1:  a2 a3 | b2 *  | *  *  | d2 *  | * * | ...
//
//   Thread (r, lane) of the T threads of row r reads entries lane, lane + T, lane + 2T, ... of
//   the row: the 32 threads of a warp read 32 consecutive entries of a stripe (coalesced for
//   every T), and stop after ceil(rl[r] / T) stripes.
//
// Overflow tail. One long row makes plain ELL unusable (3000 rows and one row of 200000 entries
// would store 6e8 entries). When rows_padded * K would exceed
// max(overflow_padding_ratio * nnz, overflow_min_entries), K is cut to the HYB width of Bell &
// Garland (SC'09, seed 001's ref. [3]): the largest k such that at least a third of the rows have
// k or more entries, rounded up to a multiple of T. Entries past K go to a CSR tail (rows in
// ascending order) that a second kernel adds to y after the ELL kernel, on the same stream. For
// matrices with moderate padding (the ones ELLR is meant for) the tail is empty.
//
// Invariants:
//   - 0 <= rl[r] <= K; the ELL part of row r is its first rl[r] entries, in column order; a row
//     with entries in the tail has rl[r] == K and its remaining entries, in column order, in the
//     tail. Padding (k >= rl[r], and every entry of rows >= rows) has the sentinel column: the
//     row's last ELL column, or 0 for a row with no ELL entry; and the value 0. Neither SpMV
//     reads padding (loops stop at rl), so non-finite x never leaks through it.
//   - K is a multiple of T; values and col_idx hold (K / T) * stripe entries.
//   - 16-bit columns (column_offsets, issue 16): where every ELL entry lies within 32767 columns
//     of its row (|col - r| fits an int16), the ELL part stores col - r in col_offset instead of
//     col_idx (then empty): 2 bytes per slot instead of 4, 10 instead of 12 in double. Padding
//     holds offset 0. The tail keeps 32-bit columns.
// Statistics: n_iter is eq. 1 of seed 000 for the kernel's warps (a warp holds 32 / T rows, row
// r needs ceil(rl[r] / T) iterations; T = 1 is eq. 1 exactly), plus ceil(len / 32) per tail row;
// n_p = 32 * n_iter - nnz (local_operator.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::ellr {

struct ellr_params {
  /// Threads per row: 1, 2, 4 or 8; 0 picks from the mean row length (threads_per_row_for).
  int threads_per_row = 0;
  /// The tail is used when the padded ELL part would exceed both of these (<= 0: never).
  double overflow_padding_ratio = 8.0;
  offset_type overflow_min_entries = offset_type(1) << 22;
  /// 16-bit column offsets from the row where every ELL entry's fits (else 32-bit columns);
  /// false always stores 32-bit columns.
  bool column_offsets = true;
};

/// The range of a 16-bit column offset col - row.
constexpr offset_type min_column_offset = INT16_MIN, max_column_offset = INT16_MAX;

/// Owning ELLR-T arrays (host).
template <typename ValueType>
struct ellr_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  int threads_per_row = 1;           ///< T
  index_type width = 0;              ///< K, a multiple of T
  global_index_type rows_padded = 0; ///< rows rounded up to 32
  std::vector<ValueType> values;     ///< (K / T) * rows_padded * T, stripe layout
  std::vector<index_type> col_idx;   ///< same layout; padding holds the sentinel (empty with col_offset)
  std::vector<std::int16_t> col_offset;  ///< same layout, col - row; padding 0 (empty with col_idx)
  std::vector<index_type> row_length;  ///< rl: ELL entries of each row [rows]
  std::vector<index_type> tail_rows;   ///< rows with entries past K, ascending
  std::vector<offset_type> tail_ptr{0};  ///< [tail rows + 1]
  std::vector<index_type> tail_col_idx;
  std::vector<ValueType> tail_values;
  ellr_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct ellr_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  int threads_per_row = 1;
  offset_type stripe = 0;  ///< rows_padded * T
  index_type stored_stripes = 0;  ///< K / T: the stripes every row stores
  const ValueType* values = nullptr;
  const index_type* col_idx = nullptr;        ///< null where col_offset is set
  const std::int16_t* col_offset = nullptr;   ///< col - row per slot, null where col_idx is set
  const index_type* row_length = nullptr;
  global_index_type n_tail = 0;
  const index_type* tail_rows = nullptr;
  const offset_type* tail_ptr = nullptr;
  const index_type* tail_col_idx = nullptr;
  const ValueType* tail_values = nullptr;
};

/// T from the mean row length: the largest of 1, 2, 4, 8 that leaves every thread at least 6
/// entries on average (T doubles while mean >= 12 T). Stencils (7, 27 entries) get 1 and 4.
/// Uneven rows (ELL padding rows * max / nnz >= 2) that already share threads get one doubling
/// more: a warp waits for the longest of its 32 / T rows (cage11, mean 14.3, padding 2.24: T = 4
/// ran 5-11% faster than T = 2 in four H100 runs, double and float).
///
/// Small blocks are latency-bound: the kernel's time is its threads' trips of `trip_stripes`
/// stripes, one round trip of loads and one of gathers each, and threads are free while they fit
/// one wave. So, given `rows` and the longest row, T then doubles while the longest row needs
/// more than one trip and rows x 2T threads fit `one_wave_threads`. On one H200 ex14 (3251 rows
/// of up to 37 entries) went from T = 2 (1.19x cuSPARSE) to 8 (1.74x), bcsstk24 from 4 (1.37x) to 8
/// (1.74x); cage11 (39082 rows) keeps 4 (jobs/results/2026-12-03_h200_deferred_ellr, call 4).
int threads_per_row_for(double mean_row_length, double ell_padding = 1.0, global_index_type rows = 0,
                        offset_type max_row_length = 0);

/// Stripes per trip of the ELL kernel: loads issued together, then their gathers.
constexpr int trip_stripes = 4;
/// One wave of the ELL kernel on an H100 or H200: 132 SMs x 6 blocks x 256 threads.
constexpr global_index_type one_wave_threads = global_index_type{132} * 6 * 256;

/// Builds ELLR-T from CSR; deterministic, the input is not changed. Throws bad_input for an
/// invalid matrix or a T outside {1, 2, 4, 8}.
template <typename ValueType>
ellr_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const ellr_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): the same arrays as build() on
/// download_csr(a), bitwise, the same statistics and the same refusals (bad_input). `a` is only
/// read (the caller frees it).
template <typename ValueType>
device_built<ellr_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const ellr_params& params);

/// Back to CSR (round-trip check).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const ellr_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y (beta == 0 overwrites y).
template <typename ValueType>
void spmv_reference(const ellr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream` (ELL kernel, then the tail kernel if any).
template <typename ValueType>
void spmv_cuda(const ellr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// Traits for format_operator.
struct traits {
  using params = ellr_params;
  template <typename V>
  using matrix = ellr_matrix<V>;
  template <typename V>
  using view = ellr_view<V>;
  template <typename V, typename Map>
  static ellr_view<V> view_of(const ellr_matrix<V>& m, Map&& map) {
    ellr_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.threads_per_row = m.threads_per_row;
    v.stripe = static_cast<offset_type>(m.rows_padded) * m.threads_per_row;
    v.stored_stripes = m.width / m.threads_per_row;
    v.values = map(m.values);
    v.col_idx = m.col_idx.empty() ? nullptr : map(m.col_idx);
    v.col_offset = m.col_offset.empty() ? nullptr : map(m.col_offset);
    v.row_length = map(m.row_length);
    v.n_tail = static_cast<global_index_type>(m.tail_rows.size());
    v.tail_rows = map(m.tail_rows);
    v.tail_ptr = map(m.tail_ptr);
    v.tail_col_idx = map(m.tail_col_idx);
    v.tail_values = map(m.tail_values);
    return v;
  }
};

}  // namespace distspmv::ellr
