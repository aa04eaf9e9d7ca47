// Builds the CSR kernels' data: the vector kernel's threads per row, the adaptive kernel's
// row blocks (rows grouped so that each block's nonzeros fit the shared-memory stage), the merge
// kernel's partition of the merge path into thread blocks and the split kernel's nonzero tiles.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/csr/merge_path.hpp"
#include "local_kernels/float_values.hpp"

namespace distspmv::csr {

/// Nonzeros one adaptive row block stages through shared memory (256 threads x 8 entries; must
/// match adaptive_stage in csr_cuda.cu); a single row longer than this gets a block of its own.
constexpr offset_type adaptive_block_nnz = 2048;
/// At most this many rows per adaptive block (two per thread of the block).
constexpr offset_type adaptive_block_rows = 512;

int vector_threads_per_row(double mean_row_length) {
  int t = 2;
  while (t < 32 && t < mean_row_length) t *= 2;
  return t;
}

double mean_gather_span(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col_idx,
                        const std::vector<index_type>& row_blocks) {
  const std::size_t blocks = row_blocks.empty() ? 0 : row_blocks.size() - 1;
  std::vector<index_type> lo(blocks, 0), hi(blocks, 0);
  for (std::size_t b = 0; b < blocks; ++b) {
    const offset_type begin = row_ptr[row_blocks[b]], end = row_ptr[row_blocks[b + 1]];
    if (begin == end) continue;
    const auto [l, h] = std::minmax_element(col_idx.begin() + begin, col_idx.begin() + end);
    lo[b] = *l;
    hi[b] = *h;
  }
  return mean_gather_span(row_ptr, row_blocks, lo, hi);
}

double mean_gather_span(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& row_blocks,
                        const std::vector<index_type>& lo, const std::vector<index_type>& hi) {
  double weighted = 0;
  for (std::size_t b = 0; b + 1 < row_blocks.size(); ++b) {
    const offset_type begin = row_ptr[row_blocks[b]], end = row_ptr[row_blocks[b + 1]];
    if (begin == end) continue;
    weighted += static_cast<double>(end - begin) * static_cast<double>(hi[b] - lo[b]);
  }
  const offset_type nnz = row_ptr.empty() ? 0 : row_ptr.back();
  return nnz > 0 ? weighted / static_cast<double>(nnz) : 0.0;
}

merge_partition partition_merge_path(const std::vector<offset_type>& row_ptr, offset_type items_per_block) {
  const offset_type rows = static_cast<offset_type>(row_ptr.size()) - 1;
  const offset_type nnz = row_ptr.back();
  const offset_type total = rows + nnz;
  const offset_type blocks = (total + items_per_block - 1) / items_per_block;
  merge_partition p;
  p.rows.reserve(static_cast<std::size_t>(blocks + 1));
  p.nnz.reserve(static_cast<std::size_t>(blocks + 1));
  // Block b starts at diagonal b * items_per_block; the last entry is the end, (rows, nnz).
  for (offset_type b = 0; b <= blocks; ++b) {
    const offset_type d = std::min(b * items_per_block, total);
    const offset_type i = merge_path_rows(d, rows, nnz, [&](offset_type r) { return row_ptr[r + 1]; });
    p.rows.push_back(static_cast<index_type>(i));
    p.nnz.push_back(d - i);
  }
  return p;
}

merge_partition partition_nnz(const std::vector<offset_type>& row_ptr, offset_type tile_nnz) {
  const offset_type rows = static_cast<offset_type>(row_ptr.size()) - 1;
  const offset_type nnz = row_ptr.back();
  const offset_type tiles = std::max<offset_type>(1, (nnz + tile_nnz - 1) / tile_nnz);
  // Rows ending at or before nonzero k (row_ptr[1..rows] is sorted).
  auto rows_ending_by = [&](offset_type k) {
    return static_cast<offset_type>(std::upper_bound(row_ptr.begin() + 1, row_ptr.end(), k) - (row_ptr.begin() + 1));
  };
  // A tile's block loops over its rows, so runs of empty rows are cut into extra tiles of at most
  // this many rows. Such a tile starts at (i, row_ptr[i]): rows before i end by then, and the part
  // of row i before it is empty, so it carries nothing.
  const offset_type max_rows = 2 * tile_nnz;
  merge_partition p;
  p.rows.reserve(static_cast<std::size_t>(tiles + 1));
  p.nnz.reserve(static_cast<std::size_t>(tiles + 1));
  offset_type owned_begin = 0;
  for (offset_type b = 0; b < tiles; ++b) {
    const offset_type owned_end = b + 1 == tiles ? rows : rows_ending_by((b + 1) * tile_nnz);
    p.rows.push_back(static_cast<index_type>(owned_begin));
    p.nnz.push_back(b * tile_nnz);
    for (offset_type i = owned_begin + max_rows; i < owned_end; i += max_rows) {
      p.rows.push_back(static_cast<index_type>(i));
      p.nnz.push_back(row_ptr[i]);
    }
    owned_begin = owned_end;
  }
  p.rows.push_back(static_cast<index_type>(rows));
  p.nnz.push_back(nnz);
  return p;
}

template <typename V>
csr_format_matrix<V> build_row_plan(const std::vector<offset_type>& row_ptr, global_index_type cols,
                                    const csr_params& params) {
  const global_index_type rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  csr_format_matrix<V> m;
  m.rows = rows;
  m.cols = cols;
  m.nnz = row_ptr.back();
  m.params = params;
  const double mean = rows > 0 ? static_cast<double>(m.nnz) / static_cast<double>(rows) : 0.0;
  if (m.params.threads_per_row <= 0) m.params.threads_per_row = vector_threads_per_row(mean);

  if (params.algorithm == kernel::adaptive) {
    // Greedy: extend the block while its nonzeros fit the stage; a row that alone exceeds it
    // closes the current block and forms its own.
    m.row_blocks.push_back(0);
    global_index_type start = 0;
    for (global_index_type r = 0; r < rows; ++r) {
      const offset_type block_nnz = row_ptr[r + 1] - row_ptr[start];
      const offset_type block_rows = r + 1 - start;
      if (block_nnz > adaptive_block_nnz || block_rows > adaptive_block_rows) {
        if (r > start) {  // close the block before row r, start a new one at r
          m.row_blocks.push_back(static_cast<index_type>(r));
          start = r;
        }
        if (row_ptr[r + 1] - row_ptr[r] > adaptive_block_nnz) {  // long row: alone
          m.row_blocks.push_back(static_cast<index_type>(r + 1));
          start = r + 1;
        }
      }
    }
    if (m.row_blocks.back() != rows) m.row_blocks.push_back(static_cast<index_type>(rows));
    for (const index_type r : m.row_blocks) m.row_block_nnz.push_back(row_ptr[r]);
  }
  if (params.algorithm == kernel::merge || params.algorithm == kernel::split) {
    auto p = params.algorithm == kernel::merge ? partition_merge_path(row_ptr, merge_items_per_block<V>)
                                               : partition_nnz(row_ptr, split_tile_nnz);
    m.tile_rows = std::move(p.rows);
    m.tile_nnz = std::move(p.nnz);
    m.tile_carry.assign(m.tile_rows.size() - 1, V(0));
  }

  m.stats.padding_ratio = 1.0;
  // N_iter: warp-synchronous iterations if one thread handled each row (eq. 1 of seed 000).
  for (global_index_type w = 0; w < rows; w += 32) {
    offset_type longest = 0;
    for (global_index_type r = w; r < std::min<global_index_type>(w + 32, rows); ++r)
      longest = std::max(longest, row_ptr[r + 1] - row_ptr[r]);
    m.stats.n_iter += longest;
  }
  m.stats.n_p = m.stats.n_iter * 32 - m.nnz;
  return m;
}

template <typename V>
void finish_build(csr_format_matrix<V>& m, double mean_span) {
  m.stream_matrix = mean_span * sizeof(V) > stream_span_bytes;
  // Counted from rows and nnz rather than the vectors' sizes: the GPU builder's matrix has no
  // row_ptr, col_idx and values on the host (its arrays are the device CSR's).
  const bool f32 = stores_float_values<V>(m.params, m.pattern);
  const std::size_t value_bytes = m.pattern ? 0 : f32 ? sizeof(float) : sizeof(V);
  m.stats.stored_bytes = static_cast<std::size_t>(m.rows + 1) * sizeof(offset_type) +
                         static_cast<std::size_t>(m.nnz) * sizeof(index_type) +
                         static_cast<std::size_t>(m.nnz) * value_bytes +
                         m.row_blocks.size() * sizeof(index_type) + m.row_block_nnz.size() * sizeof(offset_type) +
                         m.tile_rows.size() * sizeof(index_type) + m.tile_nnz.size() * sizeof(offset_type) +
                         m.tile_carry.size() * sizeof(V);
  const kernel k = m.params.algorithm;
  const char* names[] = {"scalar", "vector", "adaptive", "merge", "split"};
  m.stats.params = std::string("kernel=") + names[static_cast<int>(k)] +
                   (k == kernel::vector ? " T=" + std::to_string(m.params.threads_per_row) : "") +
                   (m.stream_matrix ? " streamed" : "") + (m.pattern ? " pattern" : "") +
                   (f32 ? " float-values" : "") +
                   (k == kernel::merge ? " items/thread=" + std::to_string(merge_items_per_thread<V>) +
                                             " blocks=" + std::to_string(m.tile_carry.size())
                                       : "") +
                   (k == kernel::split ? " tiles=" + std::to_string(m.tile_carry.size()) : "");
}

template <typename V>
csr_format_matrix<V> build(csr_matrix<V, index_type>&& a, const csr_params& params) {
  validate_csr(a, "csr::build", /*allow_nonfinite=*/true);
  csr_format_matrix<V> m = build_row_plan<V>(a.row_ptr, a.cols, params);
  m.pattern = !a.values.empty() && std::all_of(a.values.begin(), a.values.end(), [](V v) { return v == V(1); });
  const std::vector<index_type>* blocks = gather_blocks(m);
  finish_build(m, blocks ? mean_gather_span(a.row_ptr, a.col_idx, *blocks) : 0.0);
  if (stores_float_values<V>(m.params, m.pattern)) {
    check_fits_float(a, "csr::build");
    m.values_f32.assign(a.values.begin(), a.values.end());
    a.values = {};
  }
  m.row_ptr = std::move(a.row_ptr);
  m.col_idx = std::move(a.col_idx);
  if (!m.pattern && m.values_f32.empty()) m.values = std::move(a.values);
  return m;
}

template <typename V>
csr_format_matrix<V> build(const csr_matrix<V, index_type>& a, const csr_params& params) {
  return build(csr_matrix<V, index_type>(a), params);
}

template <typename V>
csr_matrix<V, index_type> to_csr(const csr_format_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  a.row_ptr = m.row_ptr;
  a.col_idx = m.col_idx;
  if (m.pattern)
    a.values.assign(static_cast<std::size_t>(m.nnz), V(1));
  else if (!m.values_f32.empty())
    a.values.assign(m.values_f32.begin(), m.values_f32.end());
  else
    a.values = m.values;
  return a;
}

#define DSPMV_INSTANTIATE(V)                                                                                      \
  template csr_format_matrix<V> build(const csr_matrix<V, index_type>&, const csr_params&);                        \
  template csr_format_matrix<V> build_row_plan(const std::vector<offset_type>&, global_index_type, const csr_params&); \
  template void finish_build(csr_format_matrix<V>&, double);                                                        \
  template csr_matrix<V, index_type> to_csr(const csr_format_matrix<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::csr
