// CUDA PELLR: one thread per sorted row (ELLR-1 on the permuted rows); a warp reads one column of
// its own 32-row block per step (128 or 256 coalesced bytes) and writes y through perm.
//
// Tuning constants. None is measured yet on the GPU machine (H100/H200); the lead's
// `--format all` run decides.
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "local_kernels/pellr/pellr.hpp"

namespace distspmv::pellr {
namespace {

/// Threads per block (seed 001: 128 to 512 give full occupancy; 256 as the CSR kernels).
constexpr int block_threads = 256;
/// Columns whose loads are issued before the first product (loads in flight, HOPPER.md).
constexpr int unroll = 4;
constexpr int warp = 32;

/// Matrix arrays are read once per SpMV: streaming loads (evict first) leave L2 to x.
template <typename T>
__device__ __forceinline__ T load_stream(const T* p) {
  return __ldcs(p);
}

template <typename V>
__global__ void __launch_bounds__(block_threads)
    pellr_kernel(pellr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type i = blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x;
  if (i >= a.rows) return;
  const index_type len = load_stream(a.row_length + i);
  const offset_type base = a.warp_ptr[i / warp] + i % warp;  // one address per warp: a broadcast
  const V* __restrict__ vals = a.values + base;
  const index_type* __restrict__ cols = a.col_idx + base;

  V sum[unroll];
#pragma unroll
  for (int u = 0; u < unroll; ++u) sum[u] = V(0);
  index_type k = 0;
  for (; k + unroll <= len; k += unroll) {
    V v[unroll];
    index_type c[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const offset_type at = static_cast<offset_type>(k + u) * warp;
      v[u] = load_stream(vals + at);
      c[u] = load_stream(cols + at);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) sum[u] += v[u] * __ldg(x + c[u]);
  }
  for (; k < len; ++k) {
    const offset_type at = static_cast<offset_type>(k) * warp;
    sum[0] += load_stream(vals + at) * __ldg(x + load_stream(cols + at));
  }
  static_assert(unroll == 4, "the next line adds the unroll accumulators");
  const V total = (sum[0] + sum[1]) + (sum[2] + sum[3]);

  const index_type r = load_stream(a.perm + i);
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  y[r] = beta == V(0) ? alpha * total : alpha * total + beta * y[r];
}

}  // namespace

template <typename V>
void spmv_cuda(const pellr_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  const unsigned grid = static_cast<unsigned>((a.rows + block_threads - 1) / block_threads);
  pellr_kernel<<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

template void spmv_cuda(const pellr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const pellr_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::pellr
