// HLL (hacked ELLPACK) and ELL-G, seed 003 (Barbieri, Cardellini, Fanfarillo, Filippone 2015, §3.1-3.2).
//
// Rows are cut into hacks of H consecutive rows (H a multiple of 32, one warp per 32 rows). Each
// hack is an ELLPACK matrix of its own: column-major, padded to the longest row of that hack, so
// that a long row only costs padding inside its own hack. The hacks are stacked in one array.
//
//   rows 0..6, H = 4 (H is 32 in practice; 4 keeps the picture small)
//       row 0: a b .      hack 0 width 3         hack 1 width 2
//       row 1: c          hack_offsets = {0, 12, 20}    (int64, entries, H * width per hack)
//       row 2: d e f
//       row 3: (empty)    values  = a c d * | b * e * | * * f * || g i k * | h * l *
//       row 4: g h        col_idx = same shape, padding (*) holds the sentinel column 0
//       row 5: i          row_length = {2, 1, 3, 0, 2, 1, 2}     (int32, per stored row)
//       row 6: k l        the hack's entry j of its local row i sits at
//                         hack_offsets[h] + j * H + i
//
// Invariants:
//   * hack_offsets[h + 1] - hack_offsets[h] = H * (longest row of hack h); the last hack is padded
//     with empty rows up to H rows.
//   * Within a row, entries keep CSR order (sorted columns); entries j >= row_length[i] are
//     padding: column 0 (a valid column whenever the matrix has an entry) and value 0. Kernels
//     stop at row_length, so padding is never multiplied; it is there for alignment only.
//   * Optional sorting (sort_window > 0): within windows of W consecutive rows, rows are stored
//     by decreasing length (stable, so deterministic); row_idx[i] is the original row of stored
//     row i and y is written through it ("permutation applied on write"). Without sorting,
//     row_idx is empty and stored row i is row i.
//   * ELL-G is the same structure with one hack holding all rows (H = rows rounded up to 32):
//     plain ELLPACK with a global width plus the row-length array (ELLPACK-R style, seed 003 §3.1).
//
// Threads per row (seed 003 §3.1: "2 threads rarely help, 4 practically never"): T in {1, 2, 4}
// threads share a row without changing the layout, thread t taking entries t, t+T, ...
#pragma once

#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::hll {

struct hll_params {
  /// Rows per hack, a multiple of 32; 0 makes one hack of all rows (ELL-G).
  int hack_size = 32;
  /// 0: rows in their order; W > 0: rows sorted by decreasing length within windows of W rows
  /// (W a multiple of the hack size).
  global_index_type sort_window = 0;
  /// Threads per row: 1, 2 or 4.
  int threads_per_row = 1;
  /// Refuse (bad_input) when the entries stored for the matrix's rows (the last hack's rows past
  /// the end aside) exceed this many times nnz; 0 disables. With H = 32
  /// HLL never exceeds 32 (a hack's padding is at most 31 rows' worth), so the default only
  /// stops ELL-G from exploding on a matrix with one long row.
  double max_padding_ratio = 32.0;
};

/// Owning host HLL.
template <typename ValueType>
struct hll_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  index_type hack_size = 32;             ///< H actually used (ELL-G: rows rounded up to 32)
  std::vector<offset_type> hack_offsets;  ///< [hacks + 1] first entry of each hack
  std::vector<index_type> row_length;    ///< [rows] entries of stored row i
  std::vector<index_type> col_idx;       ///< [hack_offsets.back()]
  std::vector<ValueType> values;         ///< [hack_offsets.back()]
  std::vector<index_type> row_idx;       ///< [rows] original row of stored row i; empty: identity
  hll_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct hll_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  index_type hack_size = 32;
  const offset_type* hack_offsets = nullptr;
  const index_type* row_length = nullptr;
  const index_type* col_idx = nullptr;
  const ValueType* values = nullptr;
  const index_type* row_idx = nullptr;  ///< nullptr: identity
  int threads_per_row = 1;
};

/// The padding column (with value 0).
constexpr index_type padding_column = 0;

/// Builds HLL from CSR (deterministic, the input is only read). Throws bad_input for invalid
/// parameters, more than 2^31 - 1 rows, or padding above params.max_padding_ratio.
template <typename ValueType>
hll_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const hll_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): the same arrays as build() on
/// download_csr(a), bitwise, the same statistics and the same refusals (bad_input). `a` is only
/// read (the caller frees it).
template <typename ValueType>
device_built<hll_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const hll_params& params);

/// Back to CSR in the original row order (round-trip check).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const hll_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y (beta == 0 overwrites y).
template <typename ValueType>
void spmv_reference(const hll_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const hll_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// Traits for format_operator.
struct traits {
  using params = hll_params;
  template <typename V>
  using matrix = hll_matrix<V>;
  template <typename V>
  using view = hll_view<V>;
  template <typename V, typename Map>
  static hll_view<V> view_of(const hll_matrix<V>& m, Map&& map) {
    hll_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.hack_size = m.hack_size;
    v.hack_offsets = map(m.hack_offsets);
    v.row_length = map(m.row_length);
    v.col_idx = map(m.col_idx);
    v.values = map(m.values);
    v.row_idx = m.row_idx.empty() ? nullptr : map(m.row_idx);
    v.threads_per_row = m.params.threads_per_row;
    return v;
  }
};

}  // namespace distspmv::hll
