// CUDA HDIA SpMV: one thread per row. A warp's 32 rows lie in one hack (H is a multiple of 32 and
// blocks start at multiples of 32), so the diagonal offsets are one broadcast load per warp, the
// values of a diagonal are 32 consecutive slots and x[row + offset] is 32 consecutive entries:
// every access is coalesced and there is no column-index array at all.
//
// Tuning constants. Not measured on the GPU machine yet (written without GPU access):
//   block_threads  256 = 8 warps (8 hacks of 32 rows per block);
//   4 diagonals per iteration in flight (4 offset, 4 value and 4 x loads before the first use),
//   with 4 separate accumulators.
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "local_kernels/hdia/hdia.hpp"

namespace distspmv::hdia {
namespace {

constexpr int block_threads = 256;

template <typename V>
__device__ __forceinline__ V finish(V alpha, V sum, V beta, const V* y, global_index_type r) {
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

// The x entry of a slot, or 0 where the diagonal runs outside the matrix (no load then).
template <typename V>
__device__ __forceinline__ V x_at(const V* __restrict__ x, global_index_type c, global_index_type cols) {
  return static_cast<unsigned long long>(c) < static_cast<unsigned long long>(cols) ? __ldg(x + c) : V(0);
}

template <typename V>
__global__ void __launch_bounds__(block_threads)
    hdia_kernel(const hdia_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x;
  if (r >= a.rows) return;

  // rows < 2^31 (checked at build), so 32-bit division; slot offsets in 64 bits.
  const unsigned H = static_cast<unsigned>(a.hack_size);
  const unsigned ru = static_cast<unsigned>(r);
  const unsigned h = ru / H;
  const offset_type first = a.hack_offsets[h];
  const offset_type last = a.hack_offsets[h + 1];
  const offset_type stride = H;
  const V* __restrict__ vals = a.values + first * stride + (ru - h * H);
  const index_type* __restrict__ offs = a.diag_offsets + first;
  const offset_type n = last - first;
  const global_index_type cols = a.cols;

  V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  offset_type d = 0;
  for (; d + 3 < n; d += 4) {
    const index_type o0 = offs[d], o1 = offs[d + 1], o2 = offs[d + 2], o3 = offs[d + 3];
    const V v0 = vals[d * stride], v1 = vals[(d + 1) * stride], v2 = vals[(d + 2) * stride],
            v3 = vals[(d + 3) * stride];
    const V x0 = x_at(x, r + o0, cols), x1 = x_at(x, r + o1, cols), x2 = x_at(x, r + o2, cols),
            x3 = x_at(x, r + o3, cols);
    s0 += v0 * x0;
    s1 += v1 * x1;
    s2 += v2 * x2;
    s3 += v3 * x3;
  }
  for (; d < n; ++d) s0 += vals[d * stride] * x_at(x, r + offs[d], cols);
  y[r] = finish(alpha, (s0 + s1) + (s2 + s3), beta, y, r);
}

}  // namespace

template <typename V>
void spmv_cuda(const hdia_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  const auto grid = static_cast<unsigned>((a.rows + block_threads - 1) / block_threads);
  hdia_kernel<V><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

template void spmv_cuda(const hdia_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const hdia_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::hdia
