// HDIA (hacked DIA), seed 003 (Barbieri, Cardellini, Fanfarillo, Filippone 2015, §3.3).
//
// Rows are cut into hacks of H consecutive rows (H a multiple of 32). Each hack is a DIA matrix
// of its own: the list of diagonal offsets (col - row) that occur in its rows, ascending, and for
// each such diagonal H values, one per row of the hack, zero where the row has no entry on it.
// A diagonal that only some hacks use costs padding only in those hacks.
//
//   H = 4 (32 in practice), 6 x 6 matrix       hack_offsets = {0, 3, 5}      (int64, diagonals)
//       row 0: a b . . . .                     diag_offsets = {-1, 0, 1 | 0, 1}
//       row 1: c d e . . .                     values (H per diagonal, column-major per diagonal):
//       row 2: . f g h . .                       hack 0: d=-1: * c f i | d=0: a d g j | d=1: b e h *
//       row 3: . . i j . .                       hack 1: d= 0: k m * * | d=1: l * * *
//       row 4: . . . . k l                     value of local row i on the hack's k-th diagonal:
//       row 5: . . . . . m                       values[(hack_offsets[h] + k) * H + i]
//   (* = stored zero: no entry, a column outside the matrix, or a row past the end)
//
// Invariants:
//   * hack_offsets[h + 1] - hack_offsets[h] = number of distinct diagonals of hack h; offsets in
//     diag_offsets are strictly ascending within a hack, so a row's entries come out in column
//     order (the same summation order as CSR).
//   * values has hack_offsets.back() * H entries; every slot that holds no entry of A is 0. In
//     mixed precision (hdia_params::float_values) values_f32 holds them rounded to float instead.
//   * Stored zeros cannot be told from entries: to_csr drops them, so an explicit zero of A that
//     lies on a diagonal does not survive the round trip (DIA's usual limit).
//   * SpMV skips columns outside [0, cols) (rows at the top/bottom of a diagonal), and otherwise
//     multiplies every stored slot, padding included, as DIA does: a padding zero times an Inf or
//     NaN in x gives NaN where CSR would not touch x.
//
// The builder refuses (bad_input) matrices without a diagonal structure: a hack with more than
// max_diagonals_per_hack diagonals, or more than max_padding_ratio * nnz slots in the rows of
// the matrix (the last hack's rows past the end do not count). The
// selector and `--format all` skip the format then.
#pragma once

#include <functional>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::hdia {

struct hdia_params {
  /// Rows per hack, a positive multiple of 32.
  int hack_size = 32;
  /// Refuse a hack with more distinct diagonals (a 27-point stencil has 27; after a METIS
  /// partition of gen:stencil27, a few hacks along the cut reach 65-77, while the whole block
  /// pads by only 2-7%: hack_slots).
  int max_diagonals_per_hack = 128;
  /// Refuse when the slots of the matrix's rows exceed this many times nnz (the last hack's rows
  /// past the end are not counted).
  double max_padding_ratio = 3.0;
  /// Mixed precision (`--precision mixed`): store the values rounded to float and multiply them
  /// with x in the value type (double x, y and sums); only in double. A value beyond float's
  /// range is bad input (float_values.hpp).
  bool float_values = false;
};

/// Whether a build with these parameters stores float values (hdia_params::float_values).
template <typename ValueType>
constexpr bool stores_float_values(const hdia_params& p) {
  return p.float_values && sizeof(ValueType) > sizeof(float);
}

/// Owning host HDIA.
template <typename ValueType>
struct hdia_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  index_type hack_size = 32;
  std::vector<offset_type> hack_offsets;  ///< [hacks + 1] first diagonal of each hack
  std::vector<index_type> diag_offsets;   ///< [hack_offsets.back()] col - row of each diagonal
  std::vector<ValueType> values;          ///< [hack_offsets.back() * H]; empty where values_f32
  std::vector<float> values_f32;          ///< the same rounded to float where stores_float_values
  hdia_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct hdia_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  index_type hack_size = 32;
  const offset_type* hack_offsets = nullptr;
  const index_type* diag_offsets = nullptr;
  const ValueType* values = nullptr;  ///< null where values_f32
  const float* values_f32 = nullptr;  ///< the values in float (mixed precision), else null
};

/// Builds HDIA from CSR (deterministic, the input is only read). Throws bad_input for invalid
/// parameters, more than 2^31 - 1 rows, or a matrix without diagonal structure (see above).
template <typename ValueType>
hdia_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const hdia_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): the same arrays as build() on
/// download_csr(a), bitwise, and the same refusals (bad_input) for the same matrices.
template <typename ValueType>
device_built<hdia_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const hdia_params& params);

/// The slots HDIA with `params` would store for the rows of `a` (each hack's distinct diagonals
/// times its rows inside the matrix), without building it: the selector's measure of diagonal
/// structure that survives a renumbering (diagonal offsets that differ between hacks). -1 when
/// a hack has more than params.max_diagonals_per_hack diagonals (build() would refuse). Host:
/// any CSR; GPU: the builder's first pass (a hash set per hack), equal to the host count.
template <typename ValueType, typename IndexType>
offset_type hack_slots(const csr_matrix<ValueType, IndexType>& a, const hdia_params& params);
template <typename ValueType>
offset_type hack_slots_cuda(const device_csr_view<ValueType>& a, const hdia_params& params);

/// Back to CSR (stored zeros dropped).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const hdia_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y (beta == 0 overwrites y).
template <typename ValueType>
void spmv_reference(const hdia_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta,
                    ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const hdia_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

namespace detail {
// The steps build() and build_cuda() share (hdia_build.cpp): parameter checks, the per-hack
// refusal checks (in the host builder's order and words) and the statistics.
void check_params(global_index_type rows, const hdia_params& params, const char* source);
void check_hack(global_index_type h, offset_type diagonals, global_index_type rows, offset_type nnz,
                const hdia_params& params, offset_type& slots_in_rows,
                const std::function<std::size_t()>& distinct_so_far, const char* source);
format_stats hdia_stats(const std::vector<offset_type>& hack_offsets, global_index_type rows, offset_type nnz,
                        global_index_type H, std::size_t value_bytes, bool float_values);
}  // namespace detail

/// Traits for format_operator.
struct traits {
  using params = hdia_params;
  template <typename V>
  using matrix = hdia_matrix<V>;
  template <typename V>
  using view = hdia_view<V>;
  template <typename V, typename Map>
  static hdia_view<V> view_of(const hdia_matrix<V>& m, Map&& map) {
    hdia_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.hack_size = m.hack_size;
    v.hack_offsets = map(m.hack_offsets);
    v.diag_offsets = map(m.diag_offsets);
    v.values = m.values_f32.empty() ? map(m.values) : nullptr;
    v.values_f32 = m.values_f32.empty() ? nullptr : map(m.values_f32);
    return v;
  }
};

}  // namespace distspmv::hdia
