// Builds IPCSR from a CSR block already in GPU memory (DESIGN.md §11), equal bitwise to build() on
// download_csr(a), with the same statistics and refusals:
//   - row_ptr, col_idx and values are a's, taken over (no copy: IPCSR keeps the CSR arrays);
//   - the row blocks, their threads per row and the statistics read only the row pointer: they
//     come from build_row_plan (the host code both builders share) on the downloaded row pointer,
//     8 bytes per row;
//   - the nonzeros are checked on the GPU as validate_csr checks them (column in [0, cols), above
//     the previous one of its row), one thread block per row block of the plan.
// The parameters are checked before the matrix and the columns last, build()'s order.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/thread/thread_search.cuh>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"

namespace distspmv::ipcsr {
namespace {

constexpr const char* source = "ipcsr::build_cuda";

// Not measured on the GPU yet (written without GPU access): 256 threads stride over a row block's
// nonzeros (at most a stage, about 14k to 29k, unless the block is one long row); the grid loops
// over the row blocks beyond 2^16 blocks (about 30 times what an H100 holds at once).
constexpr int check_threads = 256;
constexpr unsigned max_blocks = 1u << 16;

/// The first nonzero whose column lies outside [0, cols) or does not exceed its predecessor in the
/// row (atomicMin; stays ULLONG_MAX when there is none). Row block b (rows row_blocks[b] ..
/// row_blocks[b + 1] - 1) goes to one thread block. The row of a nonzero matters only where its
/// column does not exceed the previous nonzero's, at row starts mostly: only then a binary search
/// over the block's row pointer says whether the nonzero starts its row.
__global__ void __launch_bounds__(check_threads)
    first_bad_nonzero_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                             global_index_type cols, const index_type* __restrict__ row_blocks,
                             global_index_type n_blocks, unsigned long long* first_bad) {
  for (global_index_type b = blockIdx.x; b < n_blocks; b += gridDim.x) {
    const global_index_type r0 = row_blocks[b], r1 = row_blocks[b + 1];
    const offset_type end = row_ptr[r1];
    for (offset_type k = row_ptr[r0] + threadIdx.x; k < end; k += check_threads) {
      const index_type c = col_idx[k];
      bool bad = c < 0 || c >= cols;
      if (!bad && k > 0 && c <= col_idx[k - 1]) {
        const global_index_type r = r0 + cub::UpperBound(row_ptr + r0 + 1, r1 - r0 - 1, k);  // the row holding k
        bad = k > row_ptr[r];
      }
      if (bad) {
        // This thread's later nonzeros, here and in later blocks, come after k.
        atomicMin(first_bad, static_cast<unsigned long long>(k));
        return;
      }
    }
  }
}

/// validate_csr's refusals of the columns: the first bad nonzero, its row from the host's row
/// pointer.
template <typename V>
void check_columns(const device_csr_view<V>& a, const std::vector<offset_type>& row_ptr,
                   const index_type* row_blocks, global_index_type n_blocks) {
  using std::to_string;
  if (a.nnz == 0) return;
  device_storage scratch;
  auto* first_bad = static_cast<unsigned long long*>(scratch.allocate_bytes(sizeof(unsigned long long)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), nullptr));  // ULLONG_MAX
  const auto grid = static_cast<unsigned>(std::min<global_index_type>(max_blocks, n_blocks));
  first_bad_nonzero_kernel<<<grid, check_threads, 0, nullptr>>>(a.row_ptr, a.col_idx, a.cols, row_blocks, n_blocks,
                                                                first_bad);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  const unsigned long long k = download_array(first_bad, 1)[0];
  if (k == ULLONG_MAX) return;
  const auto row = std::upper_bound(row_ptr.begin() + 1, row_ptr.end(), static_cast<offset_type>(k)) -
                   (row_ptr.begin() + 1);
  const index_type c = download_array(a.col_idx + k, 1)[0];
  throw_bad_entry(source, c, row, a.cols);
}

}  // namespace

template <typename V>
device_built<ipcsr_view<V>> build_cuda(device_csr<V>&& a, const ipcsr_params& params) {
  const device_csr_view<V> d = a.view();
  check_params(d.rows, params, sizeof(V), source);
  if (d.rows < 0 || d.cols < 0)
    DSPMV_BAD_INPUT(source, "shape",
                    "negative dimension " + std::to_string(d.rows) + " x " + std::to_string(d.cols));
  const std::vector<offset_type> row_ptr = download_array(d.row_ptr, static_cast<std::size_t>(d.rows) + 1);
  check_row_pointer(row_ptr, d.nnz, source);

  ipcsr_matrix<V> m = build_row_plan<V>(row_ptr, d.cols, params);
  device_built<ipcsr_view<V>> built;
  // The plan's row blocks and threads per row are uploaded by the host path's view_of; m's
  // row_ptr, col_idx and values are empty (null in the view), which then points at a's arrays.
  built.view = traits::view_of(m, [&built](const auto& vec) { return built.storage.upload(vec); });
  built.view.row_ptr = d.row_ptr;
  built.view.col_idx = d.col_idx;
  built.view.values = d.values;
  check_columns(d, row_ptr, built.view.row_blocks, built.view.n_blocks);
  built.storage.adopt(std::move(a.storage));
  a = {};
  built.stats = std::move(m.stats);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<ipcsr_view<float>> build_cuda(device_csr<float>&&, const ipcsr_params&);
template device_built<ipcsr_view<double>> build_cuda(device_csr<double>&&, const ipcsr_params&);

}  // namespace distspmv::ipcsr
