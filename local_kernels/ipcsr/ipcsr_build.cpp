// Builds IPCSR's row blocks on the host (seed 004, Algorithm 4 with Algorithm 6's rule for long
// rows) and each block's threads per row (the decision tree of §4.1). Deterministic; the input is
// only read.
#include <algorithm>
#include <limits>
#include <string>

#include "local_kernels/ipcsr/ipcsr.hpp"

namespace distspmv::ipcsr {
namespace {

constexpr const char* source = "ipcsr::build";

}  // namespace

int threads_per_row_for(offset_type rows, offset_type nnz) {
  const double mean = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  int p = 1;
  while (2 * p * rows <= block_threads && 2 * p <= 32 && p < mean) p *= 2;
  return p;
}

ipcsr_params params_for(backend where) {
  ipcsr_params p;
  if (where == backend::cuda) {
    const std::size_t device = device_shared_bytes();
    if (device > 0) p.shared_bytes = std::min(p.shared_bytes, device);
  }
  return p;
}

void check_params(global_index_type rows, const ipcsr_params& params, std::size_t value_size, const char* source) {
  const offset_type stage = stage_capacity(params.shared_bytes, value_size);  // SHARED_SIZE in values
  if (stage < 32)
    DSPMV_BAD_INPUT(source, "shared_bytes",
                    std::to_string(params.shared_bytes) + " bytes stage fewer than 32 values (" + std::to_string(stage) + ")");
  if (rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(rows) + " rows exceed the 32-bit local row range");
}

template <typename V>
ipcsr_matrix<V> build_row_plan(const std::vector<offset_type>& row_ptr, global_index_type cols,
                               const ipcsr_params& params) {
  const offset_type stage = stage_capacity(params.shared_bytes, sizeof(V));  // SHARED_SIZE in values
  const global_index_type rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  ipcsr_matrix<V> m;
  m.rows = rows;
  m.cols = cols;
  m.nnz = row_ptr.back();
  m.params = params;

  // Greedy: a block grows while its nonzeros fit the stage and it has at most nt rows; a row
  // that does not fit closes the block before it, and a row that alone exceeds the stage gets a
  // block of its own.
  m.row_blocks.push_back(0);
  global_index_type start = 0;
  for (global_index_type r = 0; r < rows; ++r) {
    const offset_type len = row_ptr[r + 1] - row_ptr[r];
    if (r > start && (row_ptr[r + 1] - row_ptr[start] > stage || r - start == block_threads)) {
      m.row_blocks.push_back(static_cast<index_type>(r));
      start = r;
    }
    if (r == start && len > stage) {
      m.row_blocks.push_back(static_cast<index_type>(r + 1));
      start = r + 1;
    }
  }
  if (m.row_blocks.back() != rows) m.row_blocks.push_back(static_cast<index_type>(rows));

  const std::size_t blocks = m.row_blocks.size() - 1;
  m.threads_per_row.resize(blocks);
  offset_type single_row_blocks = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const offset_type block_rows = m.row_blocks[b + 1] - m.row_blocks[b];
    const offset_type nnz = row_ptr[m.row_blocks[b + 1]] - row_ptr[m.row_blocks[b]];
    if (block_rows == 1) {
      m.threads_per_row[b] = 0;  // Algorithm 8: the whole block on the row
      ++single_row_blocks;
    } else {
      m.threads_per_row[b] = threads_per_row_for(block_rows, nnz);
      m.stage_entries = std::max(m.stage_entries, nnz);
    }
  }

  // Counted from rows and nnz rather than the vectors' sizes: the GPU builder's plan has no
  // row_ptr, col_idx and values on the host (its arrays are the device CSR's).
  m.stats.stored_bytes = static_cast<std::size_t>(rows + 1) * sizeof(offset_type) +
                         static_cast<std::size_t>(m.nnz) * (sizeof(index_type) + sizeof(V)) +
                         m.row_blocks.size() * sizeof(index_type) + m.threads_per_row.size() * sizeof(std::int32_t);
  m.stats.padding_ratio = 1.0;
  // N_iter (seed 000 eq. 1) as for CSR: one thread per row, a warp runs to its longest row.
  for (global_index_type w = 0; w < rows; w += 32) {
    offset_type longest = 0;
    for (global_index_type r = w; r < std::min<global_index_type>(w + 32, rows); ++r)
      longest = std::max(longest, row_ptr[r + 1] - row_ptr[r]);
    m.stats.n_iter += longest;
  }
  m.stats.n_p = m.stats.n_iter * 32 - m.nnz;
  m.stats.params = "SHARED_SIZE=" + std::to_string(params.shared_bytes) + "B (" + std::to_string(stage) +
                   " values) nt=" + std::to_string(block_threads) + " blocks=" + std::to_string(blocks) +
                   " single_row_blocks=" + std::to_string(single_row_blocks);
  return m;
}

template <typename V>
ipcsr_matrix<V> build(const csr_matrix<V, index_type>& a, const ipcsr_params& params) {
  // Parameters first, then the matrix: build_cuda checks the columns block by block, so only
  // once the parameters have shaped the blocks; both builders refuse in the same order.
  check_params(a.rows, params, sizeof(V), source);
  validate_csr(a, source, /*allow_nonfinite=*/true);
  ipcsr_matrix<V> m = build_row_plan<V>(a.row_ptr, a.cols, params);
  m.row_ptr = a.row_ptr;
  m.col_idx = a.col_idx;
  m.values = a.values;
  return m;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const ipcsr_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  a.row_ptr = m.row_ptr;
  a.col_idx = m.col_idx;
  a.values = m.values;
  return a;
}

#define DSPMV_INSTANTIATE(V)                                                                              \
  template ipcsr_matrix<V> build(const csr_matrix<V, index_type>&, const ipcsr_params&);                  \
  template ipcsr_matrix<V> build_row_plan(const std::vector<offset_type>&, global_index_type, const ipcsr_params&); \
  template csr_matrix<V, index_type> to_csr(const ipcsr_matrix<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::ipcsr
