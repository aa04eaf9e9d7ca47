// IPCSR (improved perfect CSR), seed 004 (Gao, Qi, He 2016).
//
// The CSR arrays stay as they are; the host adds row blocks whose nonzeros fit a shared-memory
// stage of SHARED_SIZE values (Algorithm 4 with Algorithm 6's long-row rule). One thread block of
// nt = 1024 threads per row block:
//
//   row_blocks = {0, 3, 4, 6}       block 0: rows 0..2, block 1: row 3 alone, block 2: rows 4..5
//
//   multi-row block   1. all threads load values[k] * x[col_idx[k]] for the block's k, coalesced
//                        (16-byte loads of col_idx and values where aligned), into the stage;
//                     2. P threads per row sum the row's stretch of the stage and combine with
//                        warp shuffles; P is chosen per block by the decision tree below.
//                      stage: | row 0 products | row 1 products | row 2 products |   (<= SHARED_SIZE)
//   single-row block  (a row longer than SHARED_SIZE, or a block that holds one row: §4.2) all
//                     threads stride over the row straight from global memory and reduce the
//                     block's partial sums (Algorithm 8).
//
// Decision tree (§4.1; its Figure 1 is not in the extracted text, so this is reconstructed from
// the prose: "the number of threads per row from nt / num_rows"): P is the largest power of two
// with P * num_rows <= nt, P <= 32 (so a row's threads are within one warp and reduce with
// shuffles) and P < 2 * mean row length of the block (no thread without work on average).
//
// SHARED_SIZE is a build parameter in bytes (shared_bytes); a multi-row block holds at most
// stage_capacity(shared_bytes, sizeof(V)) = shared_bytes / sizeof(V) - 3 nonzeros and at most nt
// rows; the kernel's dynamic shared memory is (most nonzeros of a multi-row block + 3) values. The default is the paper's eq. 3 on
// Hopper (H100/H200: 228 KB per SM, 2048 threads per SM, nt = 1024 so 2 blocks per SM, 1 KB
// reserved per block): 228 KB / 2 - 1 KB = 113 KB. The registry builds CUDA operators with eq. 3
// evaluated on the current device (device_shared_bytes), so a smaller GPU gets smaller blocks; the
// launcher checks the stage against cudaDevAttrMaxSharedMemoryPerBlockOptin before each launch
// and throws, naming both sizes, if the operator was built for a larger device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::ipcsr {

/// Threads per block (the paper's nt); also the most rows a block holds.
constexpr int block_threads = 1024;

/// Eq. 3 of seed 004 on H100/H200 (see above).
constexpr std::size_t default_shared_bytes = 113 * 1024;

/// Values of the kernel's stage that a multi-row block may fill within `shared_bytes`: the
/// kernel starts the stage at the block's first nonzero rounded down to a multiple of 4 (so that
/// 16-byte loads store aligned), which costs up to 3 slots.
constexpr offset_type stage_capacity(std::size_t shared_bytes, std::size_t value_size) {
  return static_cast<offset_type>(shared_bytes / value_size) - 3;
}

struct ipcsr_params {
  /// SHARED_SIZE in bytes: a multi-row block stages at most shared_bytes / sizeof(V) products.
  std::size_t shared_bytes = default_shared_bytes;
};

/// Owning IPCSR: a copy of the CSR arrays plus the row blocks.
template <typename ValueType>
struct ipcsr_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  std::vector<offset_type> row_ptr;
  std::vector<index_type> col_idx;
  std::vector<ValueType> values;
  std::vector<index_type> row_blocks;         ///< [blocks + 1] first row of each block, then rows
  std::vector<std::int32_t> threads_per_row;  ///< [blocks] P of each block; 0 marks a single-row block
  offset_type stage_entries = 0;              ///< most nonzeros of a multi-row block (the stage size)
  ipcsr_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct ipcsr_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  const offset_type* row_ptr = nullptr;
  const index_type* col_idx = nullptr;
  const ValueType* values = nullptr;
  const index_type* row_blocks = nullptr;
  const std::int32_t* threads_per_row = nullptr;
  global_index_type n_blocks = 0;
  offset_type stage_entries = 0;
};

/// Builds the row blocks (deterministic, the input is only read). Throws bad_input for
/// shared_bytes below 32 values or more than 2^31 - 1 rows.
template <typename ValueType>
ipcsr_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const ipcsr_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): takes over a's arrays (no copy),
/// plans the row blocks on the host from the downloaded row pointer (build_row_plan, 8 bytes per
/// row) and checks the columns on the GPU; the same arrays as build() on download_csr(a), bitwise,
/// the same statistics and the same refusals (bad_input).
template <typename ValueType>
device_built<ipcsr_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const ipcsr_params& params);

/// build()'s checks of the parameters (a stage of at least 32 values of `value_size` bytes) and
/// of the 32-bit row limit; both builders run them before the matrix's checks.
void check_params(global_index_type rows, const ipcsr_params& params, std::size_t value_size, const char* source);

/// The part of build() that reads only the row pointer (rows + 1 entries, validated): rows, cols,
/// nnz, params, row_blocks, threads_per_row, stage_entries and all statistics; row_ptr, col_idx
/// and values stay empty. build_cuda calls it on the downloaded row pointer.
template <typename ValueType>
ipcsr_matrix<ValueType> build_row_plan(const std::vector<offset_type>& row_ptr, global_index_type cols,
                                       const ipcsr_params& params);

/// Back to plain CSR (round-trip check).
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const ipcsr_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y (row by row; the blocks matter only on the GPU).
template <typename ValueType>
void spmv_reference(const ipcsr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta,
                    ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const ipcsr_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// The decision tree: threads per row for a multi-row block of `rows` rows and `nnz` nonzeros.
int threads_per_row_for(offset_type rows, offset_type nnz);

/// Eq. 3 of seed 004 on the current CUDA device: shared memory per SM / blocks of nt threads per
/// SM, less the per-block reservation, capped by the per-block opt-in limit. 0 without a device
/// (or in a build without CUDA).
std::size_t device_shared_bytes();

/// Parameters for building an operator for `where`: the default, lowered to
/// device_shared_bytes() for the CUDA backend when the device offers less.
ipcsr_params params_for(backend where);

/// Traits for format_operator.
struct traits {
  using params = ipcsr_params;
  template <typename V>
  using matrix = ipcsr_matrix<V>;
  template <typename V>
  using view = ipcsr_view<V>;
  template <typename V, typename Map>
  static ipcsr_view<V> view_of(const ipcsr_matrix<V>& m, Map&& map) {
    ipcsr_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.row_ptr = map(m.row_ptr);
    v.col_idx = map(m.col_idx);
    v.values = map(m.values);
    v.row_blocks = map(m.row_blocks);
    v.threads_per_row = map(m.threads_per_row);
    v.n_blocks = static_cast<global_index_type>(m.threads_per_row.size());
    v.stage_entries = m.stage_entries;
    return v;
  }
};

}  // namespace distspmv::ipcsr
