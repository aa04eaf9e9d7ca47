// Host CSR matrix: the interchange type between io/, partition/, local_kernels/ and dist/.
//
//   row_ptr  [rows + 1]  offsets into col_idx/values, non-decreasing, row_ptr[0] = 0
//   col_idx  [nnz]       column of each entry, sorted and unique within a row
//   values   [nnz]
//
// io/ produces csr_matrix<double, global_index_type> (global column ids); local kernels take
// csr_matrix<V, index_type> (local 32-bit columns). Rows may be a slice [a, b) of a larger
// matrix: then row i of the struct is global row a + i and cols is the global column count.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/types.hpp"

namespace distspmv {

/// Owning host CSR matrix.
/// @tparam ValueType  float or double
/// @tparam IndexType  column index type (global_index_type in I/O, index_type in kernels)
template <typename ValueType, typename IndexType = global_index_type>
struct csr_matrix {
  using value_type = ValueType;
  using col_index_type = IndexType;

  global_index_type rows = 0;
  global_index_type cols = 0;
  std::vector<offset_type> row_ptr{0};
  std::vector<IndexType> col_idx;
  std::vector<ValueType> values;

  offset_type nnz() const noexcept { return row_ptr.empty() ? 0 : row_ptr.back(); }
  offset_type row_length(global_index_type r) const { return row_ptr[r + 1] - row_ptr[r]; }
};

/// Checks every structural invariant; throws bad_input naming `source` and the first problem.
/// With allow_nonfinite = false, NaN and Inf values are rejected too.
template <typename V, typename I>
void validate_csr(const csr_matrix<V, I>& a, const std::string& source, bool allow_nonfinite = false) {
  using std::to_string;
  if (a.rows < 0 || a.cols < 0)
    DSPMV_BAD_INPUT(source, "shape", "negative dimension " + to_string(a.rows) + " x " + to_string(a.cols));
  if (static_cast<global_index_type>(a.row_ptr.size()) != a.rows + 1)
    DSPMV_BAD_INPUT(source, "indptr", "has " + to_string(a.row_ptr.size()) + " entries, expected rows + 1 = " +
                                          to_string(a.rows + 1));
  if (a.row_ptr[0] != 0) DSPMV_BAD_INPUT(source, "indptr", "does not start at 0");
  for (global_index_type r = 0; r < a.rows; ++r)
    if (a.row_ptr[r + 1] < a.row_ptr[r])
      DSPMV_BAD_INPUT(source, "indptr", "decreases at row " + to_string(r));
  const offset_type nnz = a.row_ptr.back();
  if (static_cast<offset_type>(a.col_idx.size()) != nnz)
    DSPMV_BAD_INPUT(source, "indices", "has " + to_string(a.col_idx.size()) + " entries but indptr ends at " +
                                           to_string(nnz));
  if (static_cast<offset_type>(a.values.size()) != nnz)
    DSPMV_BAD_INPUT(source, "data", "has " + to_string(a.values.size()) + " entries but indptr ends at " +
                                        to_string(nnz));
  for (global_index_type r = 0; r < a.rows; ++r) {
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const auto c = static_cast<global_index_type>(a.col_idx[k]);
      if (c < 0 || c >= a.cols)
        DSPMV_BAD_INPUT(source, "indices", "column index " + to_string(c) + " of row " + to_string(r) +
                                               " out of range [0, " + to_string(a.cols) + ")");
      if (k > a.row_ptr[r] && a.col_idx[k] <= a.col_idx[k - 1])
        DSPMV_BAD_INPUT(source, "indices", "columns of row " + to_string(r) + " are not sorted and unique");
      if (!allow_nonfinite && !std::isfinite(static_cast<double>(a.values[k])))
        DSPMV_BAD_INPUT(source, "data", "non-finite value in row " + to_string(r) +
                                            " (pass --allow-nonfinite to accept NaN and Inf)");
    }
  }
}

/// Copy with other value and column types; throws if a column does not fit IndexType2.
template <typename V2, typename I2, typename V, typename I>
csr_matrix<V2, I2> convert_csr(const csr_matrix<V, I>& a) {
  if (a.cols > 0 && static_cast<global_index_type>(a.cols - 1) >
                        static_cast<global_index_type>(std::numeric_limits<I2>::max()))
    throw error("convert_csr: " + std::to_string(a.cols) + " columns do not fit the index type",
                __FILE__, __LINE__);
  csr_matrix<V2, I2> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr = a.row_ptr;
  b.col_idx.assign(a.col_idx.begin(), a.col_idx.end());
  b.values.assign(a.values.begin(), a.values.end());
  return b;
}

/// Rows [range.begin, range.end) of `a` as a new matrix (same columns).
template <typename V, typename I>
csr_matrix<V, I> slice_rows(const csr_matrix<V, I>& a, row_range range) {
  csr_matrix<V, I> s;
  s.rows = range.size();
  s.cols = a.cols;
  s.row_ptr.resize(s.rows + 1);
  const offset_type base = a.row_ptr[range.begin];
  for (global_index_type r = 0; r <= s.rows; ++r) s.row_ptr[r] = a.row_ptr[range.begin + r] - base;
  s.col_idx.assign(a.col_idx.begin() + base, a.col_idx.begin() + a.row_ptr[range.end]);
  s.values.assign(a.values.begin() + base, a.values.begin() + a.row_ptr[range.end]);
  return s;
}

/// Exact equality of shape, pattern and values.
template <typename V, typename I>
bool operator==(const csr_matrix<V, I>& a, const csr_matrix<V, I>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

}  // namespace distspmv
