// Builds the CSR kernels' data from a CSR block already in GPU memory (DESIGN.md §11), equal
// bitwise to build() on download_csr(a):
//   - the arrays row_ptr, col_idx and values are a's, taken over (no copy);
//   - what build() derives from the row pointer alone (threads per row, the adaptive row blocks,
//     the merge and split tiles, N_iter) comes from build_row_plan on a downloaded row pointer:
//     8 bytes per row, the host code the two builders share;
//   - everything that reads the nonzeros runs on the GPU: the column check, whether every value
//     is 1 (pattern, thrust::all_of) and each gather block's smallest and largest column (CUB
//     segmented reductions) for mean_gather_span. A pattern block's values are freed (the
//     kernels never read them) where they are an allocation of their own;
//   - float values (mixed precision) are rounded into a new float array, and the doubles freed,
//     where the GPU has room for both at once; else in place into the first half of the values'
//     memory, whose second half then stays allocated with the block (float_values.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/logical.h>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/float_values.hpp"

namespace distspmv::csr {
namespace {

constexpr int check_threads = 256;
/// Grid cap of the column check's grid-stride loop: 4096 blocks of 256 threads are about four
/// times the threads an H100 holds at once (132 SMs x 2048), so the loop still fills the GPU,
/// and the grid stays far below the launch limit however many nonzeros the block has.
constexpr offset_type check_max_blocks = 4096;

/// The first nonzero whose column lies outside [0, cols): each thread walks its nonzeros in
/// increasing order and reports only its first bad one, so atomicMin leaves the smallest index
/// (deterministic); `first` keeps nnz where every column is in range.
__global__ void first_bad_column_kernel(const index_type* __restrict__ col_idx, offset_type nnz,
                                        global_index_type cols, unsigned long long* first) {
  const offset_type stride = static_cast<offset_type>(gridDim.x) * blockDim.x;
  for (offset_type k = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x; k < nnz; k += stride) {
    const global_index_type c = col_idx[k];
    if (c < 0 || c >= cols) {
      atomicMin(first, static_cast<unsigned long long>(k));
      return;
    }
  }
}

template <typename V>
struct is_one {
  __host__ __device__ bool operator()(V v) const { return v == V(1); }
};

/// Every value is 1 (and there is one): build()'s test for a pattern CSR.
template <typename V>
bool all_values_one(const device_csr_view<V>& a) {
  return a.nnz > 0 && thrust::all_of(thrust::device, a.values, a.values + a.nnz, is_one<V>{});
}

/// The row pointer on the host, checked as validate_csr checks it (the partitions rely on it
/// starting at 0, never decreasing and ending at nnz).
template <typename V>
std::vector<offset_type> checked_row_ptr(const device_csr_view<V>& a) {
  using std::to_string;
  const std::string source = "csr::build_cuda";
  if (a.rows < 0 || a.cols < 0)
    DSPMV_BAD_INPUT(source, "shape", "negative dimension " + to_string(a.rows) + " x " + to_string(a.cols));
  std::vector<offset_type> row_ptr = download_array(a.row_ptr, static_cast<std::size_t>(a.rows) + 1);
  if (row_ptr.front() != 0) DSPMV_BAD_INPUT(source, "indptr", "does not start at 0");
  const auto decrease = std::adjacent_find(row_ptr.begin(), row_ptr.end(), std::greater<offset_type>());
  if (decrease != row_ptr.end())
    DSPMV_BAD_INPUT(source, "indptr", "decreases at row " + to_string(decrease - row_ptr.begin()));
  if (row_ptr.back() != a.nnz)
    DSPMV_BAD_INPUT(source, "indptr", "ends at " + to_string(row_ptr.back()) + " but the block has " +
                                          to_string(a.nnz) + " nonzeros");
  return row_ptr;
}

/// Throws bad_input naming the first column outside [0, cols), as validate_csr does; the SpMV
/// kernels would read x out of bounds there. (Sorted, unique columns within a row are the
/// producer's promise, device_csr.hpp; no kernel's memory accesses depend on it.)
template <typename V>
void check_columns(const device_csr_view<V>& a, const std::vector<offset_type>& row_ptr, device_storage& scratch) {
  if (a.nnz == 0) return;
  auto* first = static_cast<unsigned long long*>(scratch.allocate_bytes(sizeof(unsigned long long)));
  const auto none = static_cast<unsigned long long>(a.nnz);
  DSPMV_CUDA_CHECK(cudaMemcpy(first, &none, sizeof none, cudaMemcpyHostToDevice));
  const offset_type blocks = std::min(check_max_blocks, (a.nnz + check_threads - 1) / check_threads);
  first_bad_column_kernel<<<static_cast<unsigned>(blocks), check_threads, 0, nullptr>>>(a.col_idx, a.nnz, a.cols,
                                                                                         first);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  const auto k = static_cast<offset_type>(download_array(first, 1)[0]);
  if (k == a.nnz) return;
  const index_type c = download_array(a.col_idx + k, 1)[0];
  // Row r holds nonzero k where row_ptr[r] <= k < row_ptr[r + 1]: the rows ending by k.
  const auto r = std::upper_bound(row_ptr.begin() + 1, row_ptr.end(), k) - (row_ptr.begin() + 1);
  throw_bad_entry("csr::build_cuda", c, r, a.cols);
}

/// mean_gather_span of `blocks` (row boundaries): each block's smallest and largest column by
/// CUB segmented reductions over col_idx (64-bit offsets), then the shared host arithmetic over
/// the per-block results.
template <typename V>
double mean_gather_span_cuda(const device_csr_view<V>& a, const std::vector<offset_type>& row_ptr,
                             const std::vector<index_type>& blocks, device_storage& scratch) {
  const std::size_t n = blocks.empty() ? 0 : blocks.size() - 1;
  if (n == 0 || a.nnz == 0) return 0.0;
  // Block b covers nonzeros [bounds[b], bounds[b + 1]): its begin and end offsets are one array.
  std::vector<offset_type> bounds(n + 1);
  for (std::size_t b = 0; b <= n; ++b) bounds[b] = row_ptr[blocks[b]];
  const offset_type* d_bounds = scratch.upload(bounds);
  auto* d_lo = static_cast<index_type*>(scratch.allocate_bytes(n * sizeof(index_type)));
  auto* d_hi = static_cast<index_type*>(scratch.allocate_bytes(n * sizeof(index_type)));
  const auto segments = static_cast<std::int64_t>(n);
  std::size_t min_bytes = 0, max_bytes = 0;
  DSPMV_CUDA_CHECK(cub::DeviceSegmentedReduce::Min(nullptr, min_bytes, a.col_idx, d_lo, segments, d_bounds,
                                                   d_bounds + 1, nullptr));
  DSPMV_CUDA_CHECK(cub::DeviceSegmentedReduce::Max(nullptr, max_bytes, a.col_idx, d_hi, segments, d_bounds,
                                                   d_bounds + 1, nullptr));
  std::size_t temp_bytes = std::max<std::size_t>({min_bytes, max_bytes, 1});
  void* temp = scratch.allocate_bytes(temp_bytes);
  DSPMV_CUDA_CHECK(cub::DeviceSegmentedReduce::Min(temp, temp_bytes, a.col_idx, d_lo, segments, d_bounds,
                                                   d_bounds + 1, nullptr));
  temp_bytes = std::max<std::size_t>({min_bytes, max_bytes, 1});
  DSPMV_CUDA_CHECK(cub::DeviceSegmentedReduce::Max(temp, temp_bytes, a.col_idx, d_hi, segments, d_bounds,
                                                   d_bounds + 1, nullptr));
  // Empty blocks come back as the reductions' identities; the shared arithmetic skips them.
  const auto lo = download_array(d_lo, n);
  const auto hi = download_array(d_hi, n);
  return mean_gather_span(row_ptr, blocks, lo, hi);
}

}  // namespace

template <typename V>
device_built<csr_view<V>> build_cuda(device_csr<V>&& a, const csr_params& params) {
  const device_csr_view<V> d = a.view();
  const std::vector<offset_type> row_ptr = checked_row_ptr(d);
  device_storage scratch;  // freed on return: the reductions' offsets, results and temporaries
  check_columns(d, row_ptr, scratch);

  csr_format_matrix<V> m = build_row_plan<V>(row_ptr, d.cols, params);
  m.pattern = all_values_one(d);
  const std::vector<index_type>* blocks = gather_blocks(m);
  finish_build(m, blocks ? mean_gather_span_cuda(d, row_ptr, *blocks, scratch) : 0.0);

  device_built<csr_view<V>> built;
  // The plan's small arrays (row blocks, tiles, the zeroed carry-outs) are uploaded by the same
  // view_of as the host path's; m's row_ptr, col_idx and values are empty (uploaded as null), and
  // the view then points at a's arrays, which the result takes over.
  built.view = traits::view_of(m, [&built](const auto& vec) { return built.storage.upload(vec); });
  built.view.row_ptr = a.row_ptr;
  built.view.col_idx = a.col_idx;
  built.view.values = m.pattern ? nullptr : a.values;
  bool values_unused = m.pattern;  // a pattern's kernels never read its values
  if constexpr (sizeof(V) > sizeof(float)) {
    if (stores_float_values<V>(m.params, m.pattern)) {
      check_fits_float(d, "csr::build_cuda");
      const float* rounded = narrow_to_new(a.values, a.nnz, built.storage);
      values_unused = rounded != nullptr;
      built.view.values_f32 = rounded ? rounded : narrow_in_place(a.values, a.nnz);
      built.view.values = nullptr;
    }
  }
  built.storage.adopt(std::move(a.storage));
  // Values the kernels do not read (a pattern's, or doubles rounded into a new float array) give
  // their memory back now, where they are an allocation of their own (allocate_device_csr's are).
  if (values_unused) built.storage.free_allocation(a.values);
  a = {};
  built.stats = std::move(m.stats);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<csr_view<float>> build_cuda(device_csr<float>&&, const csr_params&);
template device_built<csr_view<double>> build_cuda(device_csr<double>&&, const csr_params&);

}  // namespace distspmv::csr
