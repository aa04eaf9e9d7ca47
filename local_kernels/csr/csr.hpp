// CSR, the baseline format and the reference every other format is tested against.
//
//   row_ptr  [rows + 1]  int64 offsets        row r holds entries row_ptr[r] .. row_ptr[r+1]-1
//   col_idx  [nnz]       int32 local columns  sorted within a row
//   values   [nnz]
//
// Three CUDA kernels share these arrays (seeds 000, 001, 004 discuss them):
//   scalar    one thread per row; good only for very short, even rows
//   vector    a sub-warp of T = 2..32 threads per row, T from the mean row length
//   adaptive  rows grouped into blocks of about equal nnz (CSR-Adaptive): blocks of many short
//             rows are staged through shared memory, a block holding one long row gets a whole
//             thread block; handles irregular rows (power-law graphs) without padding.
// The adaptive kernel's row blocks are computed on the host at build time (row_blocks).
#pragma once

#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::csr {

enum class kernel { scalar, vector, adaptive };

struct csr_params {
  kernel algorithm = kernel::adaptive;
  /// vector kernel: threads per row (power of two <= 32); 0 picks from the mean row length.
  int threads_per_row = 0;
};

/// Owning CSR with the kernel's precomputed data.
template <typename ValueType>
struct csr_format_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  std::vector<offset_type> row_ptr;
  std::vector<index_type> col_idx;
  std::vector<ValueType> values;
  /// adaptive: first row of each row block, plus rows at the end (empty for other kernels)
  std::vector<index_type> row_blocks;
  csr_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct csr_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  const offset_type* row_ptr = nullptr;
  const index_type* col_idx = nullptr;
  const ValueType* values = nullptr;
  const index_type* row_blocks = nullptr;
  global_index_type n_row_blocks = 0;
  kernel algorithm = kernel::adaptive;
  int threads_per_row = 1;
};

/// Builds the kernel's data; the input is copied, never changed.
template <typename ValueType>
csr_format_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const csr_params& params);

/// Back to plain CSR (round-trip check).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const csr_format_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y on a view (the host path).
template <typename ValueType>
void spmv_reference(const csr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y);

/// The oracle: y = alpha*A*x + beta*y on any host CSR (beta == 0 overwrites y).
template <typename ValueType, typename IndexType>
void spmv_host(const csr_matrix<ValueType, IndexType>& a, ValueType alpha, const ValueType* x, ValueType beta,
               ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const csr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// Threads per row for the vector kernel from the mean row length (2, 4, ..., 32).
int vector_threads_per_row(double mean_row_length);

/// Traits for format_operator.
struct traits {
  using params = csr_params;
  template <typename V>
  using matrix = csr_format_matrix<V>;
  template <typename V>
  using view = csr_view<V>;
  template <typename V, typename Map>
  static csr_view<V> view_of(const csr_format_matrix<V>& m, Map&& map) {
    csr_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.row_ptr = map(m.row_ptr);
    v.col_idx = map(m.col_idx);
    v.values = map(m.values);
    v.row_blocks = map(m.row_blocks);
    v.n_row_blocks = m.row_blocks.empty() ? 0 : static_cast<global_index_type>(m.row_blocks.size()) - 1;
    v.algorithm = m.params.algorithm;
    v.threads_per_row = m.params.threads_per_row;
    return v;
  }
};

}  // namespace distspmv::csr
