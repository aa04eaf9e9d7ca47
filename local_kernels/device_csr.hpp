// A local CSR block in GPU memory: what the GPU setup pipeline (DESIGN.md §11) hands to the GPU
// builders of the formats, the device twin of csr_matrix<V, index_type>.
//
//   row_ptr  [rows + 1]  int64 offsets, row_ptr[0] = 0
//   col_idx  [nnz]       int32 local columns, sorted and unique within a row
//   values   [nnz]
//
// It owns its arrays (one device_storage). A builder that keeps the arrays as they are (the CSR
// family, cuSPARSE) takes the whole object and adopts its storage, so no second copy of the
// matrix is ever made; the others read it and the caller frees it after the build.
// Plain C++: no CUDA header.
#pragma once

#include "common/csr_matrix.hpp"
#include "local_kernels/device_storage.hpp"

namespace distspmv {

/// What a GPU builder reads.
template <typename ValueType>
struct device_csr_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  const offset_type* row_ptr = nullptr;  ///< never null: at least one entry
  const index_type* col_idx = nullptr;   ///< null when nnz == 0
  const ValueType* values = nullptr;     ///< null when nnz == 0
};

/// Owning device CSR.
template <typename ValueType>
struct device_csr {
  using value_type = ValueType;
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  offset_type* row_ptr = nullptr;
  index_type* col_idx = nullptr;
  ValueType* values = nullptr;
  device_storage storage;

  device_csr_view<ValueType> view() const { return {rows, cols, nnz, row_ptr, col_idx, values}; }
};

/// An uninitialised device CSR of this shape (row_ptr, col_idx and values allocated).
template <typename ValueType>
device_csr<ValueType> allocate_device_csr(global_index_type rows, global_index_type cols, offset_type nnz);

/// Host to device and back (tests, and formats without a GPU builder). Synchronous.
template <typename ValueType>
device_csr<ValueType> upload_csr(const csr_matrix<ValueType, index_type>& a);
template <typename ValueType>
csr_matrix<ValueType, index_type> download_csr(const device_csr_view<ValueType>& a);

/// What validate_csr reports for the first bad entry of a device CSR that a GPU builder found:
/// column `col` of row `row` out of [0, cols), else the row's columns not sorted and unique.
[[noreturn]] inline void throw_bad_entry(const std::string& source, index_type col, global_index_type row,
                                         global_index_type cols) {
  if (col < 0 || col >= cols)
    DSPMV_BAD_INPUT(source, "indices", "column index " + std::to_string(col) + " of row " + std::to_string(row) +
                                           " out of range [0, " + std::to_string(cols) + ")");
  DSPMV_BAD_INPUT(source, "indices", "columns of row " + std::to_string(row) + " are not sorted and unique");
}

/// validate_csr's refusals of a row pointer downloaded by a GPU builder, in its order
/// (download_csr(a) has nnz columns: validate_csr words a wrong end as the columns' count).
inline void check_row_pointer(const std::vector<offset_type>& row_ptr, offset_type nnz, const std::string& source) {
  using std::to_string;
  if (row_ptr[0] != 0) DSPMV_BAD_INPUT(source, "indptr", "does not start at 0");
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r)
    if (row_ptr[r + 1] < row_ptr[r]) DSPMV_BAD_INPUT(source, "indptr", "decreases at row " + to_string(r));
  if (row_ptr.back() != nnz)
    DSPMV_BAD_INPUT(source, "indices",
                    "has " + to_string(nnz) + " entries but indptr ends at " + to_string(row_ptr.back()));
}

/// Downloads `n` entries of a device array (tests, small per-row plans). Synchronous.
template <typename T>
std::vector<T> download_array(const T* device, std::size_t n) {
  std::vector<T> h(n);
  copy_to_host(h.data(), device, n * sizeof(T));
  return h;
}

}  // namespace distspmv
