// CSR, the baseline format and the reference every other format is tested against.
//
//   row_ptr  [rows + 1]  int64 offsets        row r holds entries row_ptr[r] .. row_ptr[r+1]-1
//   col_idx  [nnz]       int32 local columns  sorted within a row
//   values   [nnz]       none when every value is 1 (a pattern matrix: graphs' adjacency
//                        matrices, Matrix Market "pattern" files): `pattern`, and the kernels
//                        multiply by 1, reading 4 bytes per nonzero instead of 12 (8 in float);
//                        float in double where csr_params::float_values asks for mixed precision
//                        (`values_f32`): x, y and the sums stay double, 8 bytes per nonzero
//
// Five CUDA kernels share these arrays (seeds 000, 001, 004 discuss the first three):
//   scalar    one thread per row; good only for very short, even rows
//   vector    a sub-warp of T = 2..32 threads per row, T from the mean row length
//   adaptive  rows grouped into blocks of about equal nnz (CSR-Adaptive): blocks of many short
//             rows are staged through shared memory, a block holding one long row gets a whole
//             thread block; handles irregular rows (power-law graphs) without padding.
//   merge     merge-path CSR (Merrill & Garland, SC16): the rows + nnz items (row ends and
//             nonzeros) are split evenly over thread blocks and threads along the merge path of
//             row_ptr[1..rows] and 0..nnz-1 (merge_path.hpp), so neither long nor empty rows
//             unbalance it. A row split between blocks is finished by a second, small kernel
//             that adds the blocks' carry-outs in block order (deterministic, no atomics).
//   split     the nonzeros alone split into equal tiles, one per thread block (the even nnz split
//             of cuSPARSE's CSR kernel): every block gathers the same number of x entries, a long
//             row spreads over many blocks, and a block owns the rows that end in its tile. The
//             row left open at a tile's end is finished by the merge kernel's fix-up.
// The adaptive kernel's row blocks and the merge and split kernels' tiles (each tile's first row and
// nonzero: tile_rows, tile_nnz) are computed on the host at build time (build_cuda too, from the
// downloaded row pointer), and so is whether the adaptive and split kernels stream the matrix past
// the L2 cache (stream_matrix; build_cuda reduces the columns on the GPU).
#pragma once

#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::csr {

enum class kernel { scalar, vector, adaptive, merge, split };

/// merge kernel: threads per block and merge items (row ends + nonzeros) per thread; the host
/// partition (csr_build.cpp) and the kernel (csr_cuda.cu) both use these. Untuned: the kernel
/// runs at 0.4-0.5x cuSPARSE on power-law matrices (H200, local_kernels/README.md).
constexpr int merge_block_threads = 128;
template <typename ValueType>
constexpr int merge_items_per_thread = sizeof(ValueType) > 4 ? 7 : 9;
/// Merge items of one thread block.
template <typename ValueType>
constexpr offset_type merge_items_per_block = offset_type{merge_block_threads} * merge_items_per_thread<ValueType>;

/// split kernel: threads per block and nonzeros per thread (a tile = one block's nonzeros); the
/// host partition (csr_build.cpp) and the kernel (csr_cuda.cu) both use these. H100 (runs 15-16):
/// 4 and 12 items per thread ran within 1% of 8 on rmat:22:16; on lognormal in double 4 was 4-8%
/// and 12 was 10-12% slower.
constexpr int split_block_threads = 256;
constexpr int split_items_per_thread = 8;
constexpr offset_type split_tile_nnz = offset_type{split_block_threads} * split_items_per_thread;

struct csr_params {
  kernel algorithm = kernel::adaptive;
  /// vector kernel: threads per row (power of two <= 32); 0 picks from the mean row length.
  int threads_per_row = 0;
  /// Mixed precision (`--precision mixed`): store the values rounded to float and multiply them
  /// with x in the value type, so that x, y and every sum stay double. Only in double and where
  /// the block is no pattern (which stores no values); a value beyond float's range is bad input.
  bool float_values = false;
};

/// Whether a build with these parameters stores float values (csr_params::float_values).
template <typename ValueType>
constexpr bool stores_float_values(const csr_params& p, bool pattern) {
  return p.float_values && sizeof(ValueType) > sizeof(float) && !pattern;
}

/// Owning CSR with the kernel's precomputed data.
template <typename ValueType>
struct csr_format_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  std::vector<offset_type> row_ptr;
  std::vector<index_type> col_idx;
  std::vector<ValueType> values;  ///< empty where pattern or values_f32
  /// the values rounded to float where stores_float_values (mixed precision), else empty
  std::vector<float> values_f32;
  /// every value is 1 (checked at build, nnz > 0): values are not stored
  bool pattern = false;
  /// adaptive: first row of each row block, plus rows at the end (empty for other kernels)
  std::vector<index_type> row_blocks;
  /// adaptive: the nonzeros before each row block, plus nnz (row_ptr at row_blocks), so that a
  /// block's stage loads need not wait for row_ptr (empty for other kernels)
  std::vector<offset_type> row_block_nnz;
  /// adaptive and split: load the matrix and store y with evict-first hints so that x keeps the L2
  /// cache; set where a block's gathers from x span more than stream_span_bytes on average
  bool stream_matrix = false;
  /// merge and split: where each thread block's tile starts, as (rows before it, nonzeros before
  /// it), plus the end (rows, nnz); empty for other kernels (partition_merge_path,
  /// partition_nnz). A tile's rows are those from its start up to the next tile's start.
  std::vector<index_type> tile_rows;
  std::vector<offset_type> tile_nnz;
  /// merge and split: one carry-out per thread block, written by the kernel and read by its fix-up
  /// on the same stream (zeros here; the view's copy is the scratch)
  std::vector<ValueType> tile_carry;
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
  const ValueType* values = nullptr;  ///< null where pattern or values_f32
  bool pattern = false;               ///< every value is 1
  const float* values_f32 = nullptr;  ///< the values in float (mixed precision), else null
  const index_type* row_blocks = nullptr;
  const offset_type* row_block_nnz = nullptr;
  global_index_type n_row_blocks = 0;
  bool stream_matrix = false;
  const index_type* tile_rows = nullptr;
  const offset_type* tile_nnz = nullptr;
  ValueType* tile_carry = nullptr;  ///< the one array a kernel writes (see traits::view_of)
  global_index_type n_tiles = 0;
  kernel algorithm = kernel::adaptive;
  int threads_per_row = 1;
};

/// Builds the kernel's data; the input is copied, never changed.
template <typename ValueType>
csr_format_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const csr_params& params);
/// The same, taking over a's arrays (no second copy of the block).
template <typename ValueType>
csr_format_matrix<ValueType> build(csr_matrix<ValueType, index_type>&& a, const csr_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): takes over a's arrays (no copy) and
/// computes the kernel's data on the GPU; the arrays equal build()'s on download_csr(a), bitwise.
template <typename ValueType>
device_built<csr_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const csr_params& params);

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

/// Merge-path partition: the coordinates (rows consumed, nonzeros consumed) at the diagonals 0,
/// items_per_block, 2 * items_per_block, ... and the end (rows, nnz); thread block b owns the
/// items between coordinates b and b + 1. Empty matrices give just the end, (0, 0).
struct merge_partition {
  std::vector<index_type> rows;
  std::vector<offset_type> nnz;
};
merge_partition partition_merge_path(const std::vector<offset_type>& row_ptr, offset_type items_per_block);

/// Even split of the nonzeros: the k-th split holds nonzeros [k * tile_nnz, (k + 1) * tile_nnz)
/// (the last one fewer) and owns the rows that end in it: those ending after k * tile_nnz (all from
/// row 0 for k = 0, so leading empty rows go to the first tile) and at or before its end (trailing
/// empty rows go to the last tile). A split owning more than 2 * tile_nnz rows (runs of empty rows)
/// is cut at row starts into tiles of at most that many rows; such a cut carries nothing. At least
/// one tile, also without nonzeros. The same coordinates as a merge partition, so that both
/// kernels share the carry fix-up.
merge_partition partition_nnz(const std::vector<offset_type>& row_ptr, offset_type tile_nnz);

/// adaptive kernel: the mean span of x that one row block gathers from (largest minus smallest
/// column, weighted by the block's nonzeros, in bytes of V) above which the matrix is streamed.
/// H100: rmat:22:16 spans megabytes and gains 5-6% from streaming; the lognormal bench (band
/// 2000, 32 KB) loses 3-5% (local_kernels/README.md).
constexpr double stream_span_bytes = 1 << 20;

/// Mean x span of the adaptive row blocks, in entries (see stream_span_bytes).
double mean_gather_span(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col_idx,
                        const std::vector<index_type>& row_blocks);

/// The same from each block's smallest and largest column (lo[b], hi[b]; ignored where block b has
/// no nonzeros): the arithmetic both builders share, so their results agree bitwise. build_cuda
/// reduces lo and hi on the GPU.
double mean_gather_span(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& row_blocks,
                        const std::vector<index_type>& lo, const std::vector<index_type>& hi);

/// The part of build() that reads only the row pointer (rows + 1 entries, validated): rows, cols,
/// nnz, params (threads_per_row resolved), row_blocks, tile_rows, tile_nnz, zeroed tile_carry,
/// and stats.n_iter, n_p, padding_ratio; row_ptr, col_idx and values stay empty. build_cuda
/// downloads the row pointer (8 bytes per row) and calls it too, so both builders share it.
template <typename ValueType>
csr_format_matrix<ValueType> build_row_plan(const std::vector<offset_type>& row_ptr, global_index_type cols,
                                            const csr_params& params);

/// The row blocks whose mean gather span decides stream_matrix: row_blocks for the adaptive
/// kernel, tile_rows for the split kernel; nullptr for the others (never streamed).
template <typename ValueType>
const std::vector<index_type>* gather_blocks(const csr_format_matrix<ValueType>& m) {
  if (m.params.algorithm == kernel::adaptive) return &m.row_blocks;
  if (m.params.algorithm == kernel::split) return &m.tile_rows;
  return nullptr;
}

/// Completes a build_row_plan whose `pattern` is set: stream_matrix from the mean gather span of
/// gather_blocks(m) (in entries; pass 0 where it is null), then stats.stored_bytes (from rows and
/// nnz, so also for a matrix whose CSR arrays live on the GPU) and stats.params.
template <typename ValueType>
void finish_build(csr_format_matrix<ValueType>& m, double mean_span);

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
    v.values = m.pattern || !m.values_f32.empty() ? nullptr : map(m.values);
    v.pattern = m.pattern;
    v.values_f32 = m.values_f32.empty() ? nullptr : map(m.values_f32);
    v.row_blocks = map(m.row_blocks);
    v.row_block_nnz = map(m.row_block_nnz);
    v.n_row_blocks = m.row_blocks.empty() ? 0 : static_cast<global_index_type>(m.row_blocks.size()) - 1;
    v.stream_matrix = m.stream_matrix;
    v.tile_rows = map(m.tile_rows);
    v.tile_nnz = map(m.tile_nnz);
    // map hands out const pointers (data() of the operator's own vector, or its device copy: neither
    // is a const object). The merge kernel's carry-outs are scratch that apply() writes, so one
    // operator must not be applied on two streams at once (dist/ applies each on one stream).
    v.tile_carry = const_cast<V*>(map(m.tile_carry));
    v.n_tiles = m.tile_rows.empty() ? 0 : static_cast<global_index_type>(m.tile_rows.size()) - 1;
    v.algorithm = m.params.algorithm;
    v.threads_per_row = m.params.threads_per_row;
    return v;
  }
};

}  // namespace distspmv::csr
