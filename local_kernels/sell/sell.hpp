// SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J. Sci. Comput. 2014; surveyed in
// seed 002): the rows are cut into slices of C consecutive rows, each slice stored column-major
// at its own width (its longest row); before slicing, rows are sorted by length (longest first,
// stable) inside windows of sigma rows, so that rows of equal length share a slice. sigma = 1 is
// no sorting; a window never crosses a slice boundary (sigma is 1 or a multiple of C).
//
//   sorted position i = C s + l holds original row perm[i] (perm absent: the identity)
//   entry j of position i sits at   slice_ptr[s] + j * C + l          (64-bit offsets)
//   width of slice s = (slice_ptr[s + 1] - slice_ptr[s]) / C
//
//   C = 4 for the picture, sigma = 4, rows (lengths) r0 (1) r1 (3) r2 (2) r3 (3) | r4 (2):
//     perm = [1, 3, 2, 0 | 4]        slice_ptr = [0, 12, 20]
//     slice 0, j = 0:  r1_0 r3_0 r2_0 r0_0
//              j = 1:  r1_1 r3_1 r2_1  *
//              j = 2:  r1_2 r3_2  *    *
//     slice 1, j = 0:  r4_0  *    *    *        (* = padding; positions past rows are padding)
//              j = 1:  r4_1  *    *    *
//
// One thread per row (rows_per_thread R = 1) walks its row across the slice: a warp reads one
// slice column per step, 32 consecutive entries. With R = 2 a thread takes two adjacent rows and
// reads each column pair with one vector load (16 bytes of double values, 8 of columns); C must
// then be a multiple of 64 so that a warp stays inside one slice.
//
// Padding is computed, not skipped (no row-length array on the device, as in the paper): it has
// the sentinel column (the row's last column; for an empty row r, or a position r past the rows,
// min(r, cols - 1)) and the value 0, so it adds 0 * x[sentinel]. x[sentinel] is an entry the row
// reads anyway (or one next to its own index), so a finite x gives exactly the CSR result; with a
// non-finite x an empty row can give NaN where CSR gives 0 (known limit; ELLR and PELLR skip
// padding instead).
//
// 16-bit columns (column_offsets, issue 16): where every slot's column, padding included, lies
// within an int16 of its sorted position i (rows move less than sigma by the sort), col_offset
// holds col - i instead of col_idx (then empty): 2 bytes per slot instead of 4.
//
// sigma = 0 (the default) chooses between 1 and the smallest multiple of C >= 256 from the byte
// model: sort when the padding it removes saves more matrix bytes than the permutation array
// costs (rows * 4 bytes, read once per SpMV). A sort that moves no row stores no permutation.
//
// x windows (x_windows, issue 16): the sorted positions are cut into blocks of window_rows (64
// slices); block b's slots read x only in [window_begin[b], window_end[b]) (padding included), and
// where that window takes at most window_max_bytes the kernel copies it into shared memory first,
// so that the gathers read shared memory instead of a 32-byte L2 sector each. The rows are sorted
// within the block (sigma = window_rows unless given; sigma must divide it), C = 32, R = 1.
// window_capacity is the widest window that is staged (0: none); blocks with wider windows
// gather from global memory.
//
// Top-slice spill (top_spill, issue 37; x windows with sigma = window_rows only): a window block's
// first slice holds its longest rows, and its width (the longest row of all) padded the other 31
// rows: 1.13x the nonzeros on the bench lognormal. The first slice of each block is capped at the
// width that stores it in the fewest bytes (spill_cap: slots at value + column bytes against
// spilled entries at value + 4 bytes), and the entries of its rows past the cap go to a CSR spill,
// one row pointer per position of the top slice (spill_ptr[32 b + l], lanes l = 0..31 of block b).
// The rows are sorted longest first, so the lanes that spill are a prefix of the slice. The kernel
// gathers a spilled row's entries a warp at a time from the block's staged window (which covers
// them) and adds them after the row's slots. Each spilled row is one more item of its block, a
// round trip or two of one warp: spill_cap charges it spill_row_bytes, so that short excesses stay
// padded (a block of equal rows spills nothing).
//
// Invariants: slice_ptr has ceil(rows / C) + 1 entries, non-decreasing, multiples of C; within a
// sigma-window the row lengths are non-increasing, ties in original order; rows and perm are
// 32-bit (build throws past 2^31 - 1 rows). row_length stays on the host (to_csr); neither SpMV
// reads it and stored_bytes does not count it.
// Statistics: n_iter is eq. 1 of seed 000 for warps of 32 sorted rows running to their slice's
// width: sum over slices of width * C / 32; n_p = 32 * n_iter - (nnz - spilled), the padding slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::sell {

struct sell_params {
  int slice_size = 32;      ///< C, a multiple of 32
  int sigma = 0;            ///< sorting window: 1 (none), a multiple of C, or 0 to choose
  int rows_per_thread = 1;  ///< R, 1 or 2 (2 needs C % 64 == 0)
  /// 16-bit column offsets from the row where every slot's fits (else 32-bit columns); false
  /// always stores 32-bit columns.
  bool column_offsets = true;
  /// Stage each block's window of x in shared memory (see above).
  bool x_windows = false;
  /// x windows sorted in the whole block: cap each block's first slice and spill its rows' excess
  /// (see above); ignored otherwise.
  bool top_spill = false;
  /// What a spilled row costs besides its entries, in bytes of slots: its warp's round trips
  /// (spill_cap). Rows spill only where they save more. 2048: no loss where rows are near equal
  /// (0 cost 1.20x there, 1024 1.02x; jobs/results/2026-12-02_h200_sell_spill run 4).
  int spill_row_bytes = 2048;
};

/// Sorted positions per x window block (64 slices of 32), and the largest window staged.
constexpr int window_rows = 2048;
constexpr std::size_t window_max_bytes = std::size_t{64} << 10;

/// The range of a 16-bit column offset col - row.
constexpr offset_type min_column_offset = INT16_MIN, max_column_offset = INT16_MAX;

/// Owning SELL-C-sigma arrays (host).
template <typename ValueType>
struct sell_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  int slice_size = 32;
  int sigma = 1;  ///< the window used (after the choice when params.sigma == 0)
  int rows_per_thread = 1;
  std::vector<offset_type> slice_ptr{0};  ///< [slices + 1]
  std::vector<index_type> col_idx;        ///< [slice_ptr.back()], column-major within a slice
  std::vector<std::int16_t> col_offset;   ///< the same as col - row, where column_offsets fit (col_idx empty)
  std::vector<ValueType> values;
  std::vector<index_type> perm;        ///< [rows] original row of each sorted position; empty: identity
  std::vector<index_type> row_length;  ///< [rows] in sorted order; host only (to_csr)
  /// x_windows: [ceil(rows / window_rows)] each block's columns (padding included) lie in
  /// [window_begin, window_end); window_capacity = the widest of at most window_max_bytes.
  std::vector<index_type> window_begin, window_end;
  int window_capacity = 0;
  /// top_spill: [window blocks * 32 + 1] the spilled entries of top-slice position 32 b + l lie in
  /// [spill_ptr[32 b + l], spill_ptr[32 b + l + 1]) of spill_col / spill_val; all empty: no spill.
  std::vector<offset_type> spill_ptr;
  std::vector<index_type> spill_col;
  std::vector<ValueType> spill_val;
  sell_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct sell_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  int slice_size = 32;
  int rows_per_thread = 1;
  const offset_type* slice_ptr = nullptr;
  const index_type* col_idx = nullptr;       ///< null where col_offset is set
  const std::int16_t* col_offset = nullptr;  ///< col - row per slot, null where col_idx is set
  const ValueType* values = nullptr;
  const index_type* perm = nullptr;  ///< nullptr: identity
  const index_type* window_begin = nullptr;  ///< x_windows; nullptr: none
  const index_type* window_end = nullptr;
  int window_capacity = 0;  ///< entries of x staged per block (blocks with wider windows: none)
  const offset_type* spill_ptr = nullptr;  ///< top_spill; nullptr: none
  const index_type* spill_col = nullptr;
  const ValueType* spill_val = nullptr;
};

/// Builds SELL-C-sigma from CSR; deterministic, the input is not changed. Throws bad_input for
/// an invalid matrix or parameters.
template <typename ValueType>
sell_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const sell_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): the same slice_ptr, col_idx, values
/// and perm as build() on download_csr(a), bitwise, the same statistics and the same refusals
/// (bad_input). a's arrays are only read (the caller frees them).
template <typename ValueType>
device_built<sell_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const sell_params& params);

/// Back to CSR in the original row order (round-trip check).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const sell_matrix<ValueType>& m);

namespace detail {
// What build() and build_cuda() decide alike (sell_build.cpp), so that they agree bitwise.

/// The parameter checks and the 32-bit row limit; both builders run them before the matrix's.
void check_params(global_index_type rows, const sell_params& params, const char* source);
/// The window the automatic sigma tries: 256 rounded up to a multiple of C.
int auto_sorted_sigma(int slice_size);
/// The sigma a build uses without a choice: params.sigma, or window_rows for x windows when 0;
/// 0 = choose by sorting_pays.
int fixed_sigma(const sell_params& params);
/// The staged width from the blocks' windows: the widest of at most window_max_bytes of values.
int window_capacity(const std::vector<index_type>& begin, const std::vector<index_type>& end,
                    std::size_t value_bytes);
/// Whether a build spills its blocks' top slices: top_spill, x windows and sigma = window_rows.
bool spills(const sell_params& params, int sigma);
/// The width of a top slice with sorted lengths len[0] >= ... >= len[31] (0 past the rows) that
/// costs the fewest bytes: slot_bytes per slot of 32 * width, spill_bytes per entry past the width
/// and row_bytes per row with such entries; ties go to the wider (less spill). The GPU builder
/// computes the same.
offset_type spill_cap(const offset_type (&len)[32], std::size_t slot_bytes, std::size_t spill_bytes,
                      std::size_t row_bytes);
/// The automatic sigma's byte model from the stored entries (padding included) of the unsorted
/// and the sorted order: whether to sort; `why` gets the text for stats.params.
bool sorting_pays(offset_type unsorted_slots, offset_type sorted_slots, global_index_type rows,
                  std::size_t value_bytes, std::string& why);
/// The statistics of a build with `slots` = slice_ptr.back() stored entries of value_bytes and
/// column_bytes (4, or 2 with 16-bit offsets) each.
/// window_capacity < 0: no x windows. spilled: entries in the top-slice spill.
format_stats sell_stats(global_index_type rows, offset_type nnz, offset_type slots, bool permuted,
                        const sell_params& params, int sigma, const std::string& why, std::size_t value_bytes,
                        std::size_t column_bytes, int window_capacity, offset_type spilled);

}  // namespace detail

/// Sequential y = alpha*A*x + beta*y (beta == 0 overwrites y).
template <typename ValueType>
void spmv_reference(const sell_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta,
                    ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const sell_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// Traits for format_operator.
struct traits {
  using params = sell_params;
  template <typename V>
  using matrix = sell_matrix<V>;
  template <typename V>
  using view = sell_view<V>;
  template <typename V, typename Map>
  static sell_view<V> view_of(const sell_matrix<V>& m, Map&& map) {
    sell_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.slice_size = m.slice_size;
    v.rows_per_thread = m.rows_per_thread;
    v.slice_ptr = map(m.slice_ptr);
    v.col_idx = m.col_idx.empty() ? nullptr : map(m.col_idx);
    v.col_offset = m.col_offset.empty() ? nullptr : map(m.col_offset);
    v.values = map(m.values);
    v.perm = m.perm.empty() ? nullptr : map(m.perm);
    v.window_begin = m.window_begin.empty() ? nullptr : map(m.window_begin);
    v.window_end = m.window_end.empty() ? nullptr : map(m.window_end);
    v.window_capacity = m.window_capacity;
    v.spill_ptr = m.spill_ptr.empty() ? nullptr : map(m.spill_ptr);
    v.spill_col = m.spill_col.empty() ? nullptr : map(m.spill_col);
    v.spill_val = m.spill_val.empty() ? nullptr : map(m.spill_val);
    return v;
  }
};

}  // namespace distspmv::sell
