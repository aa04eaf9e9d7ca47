// CUDA HLL / ELL-G SpMV: T threads per stored row (T = 1, 2, 4), column-major entries, so that
// the 32/T rows of a warp read one contiguous segment per entry index (coalesced).
//
// Tuning constants. Not measured on the GPU machine yet (written without GPU access); the values
// follow the CSR kernels and seed 003 (128-256 threads per block, 2-way prefetch in Alg. 3.2):
//   block_threads  256 = 8 warps, a multiple of every hack size (so no block straddles a hack
//                  in an unaligned way) and of 32 / T;
//   unroll         4 entries per thread in flight (4 col loads, 4 value loads, then 4 x gathers)
//                  with 4 separate accumulators; seed 003 prefetched 2.
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "local_kernels/hll/hll.hpp"

namespace distspmv::hll {
namespace {

constexpr int block_threads = 256;

template <typename V>
__device__ __forceinline__ V finish(V alpha, V sum, V beta, const V* y, global_index_type r) {
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

template <typename V, int T>
__global__ void __launch_bounds__(block_threads)
    hll_kernel(const hll_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type thread = blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x;
  const global_index_type i = thread / T;  // stored row
  const int lane = static_cast<int>(threadIdx.x % T);
  if (i >= a.rows) return;  // T divides 32: the T threads of a row leave together

  // rows < 2^31 (checked at build), so 32-bit division; offsets in 64 bits.
  const unsigned H = static_cast<unsigned>(a.hack_size);
  const unsigned iu = static_cast<unsigned>(i);
  const unsigned h = iu / H;
  const offset_type stride = H;
  const offset_type base = a.hack_offsets[h] + (iu - h * H);
  const index_type* __restrict__ cols = a.col_idx + base;
  const V* __restrict__ vals = a.values + base;
  const index_type len = a.row_length[i];

  V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  index_type j = lane;
  for (; j + 3 * T < len; j += 4 * T) {
    const offset_type k = j * stride;
    const offset_type step = T * stride;
    const index_type c0 = cols[k], c1 = cols[k + step], c2 = cols[k + 2 * step], c3 = cols[k + 3 * step];
    const V v0 = vals[k], v1 = vals[k + step], v2 = vals[k + 2 * step], v3 = vals[k + 3 * step];
    s0 += v0 * __ldg(x + c0);
    s1 += v1 * __ldg(x + c1);
    s2 += v2 * __ldg(x + c2);
    s3 += v3 * __ldg(x + c3);
  }
  for (; j < len; j += T) s0 += vals[j * stride] * __ldg(x + cols[j * stride]);
  V sum = (s0 + s1) + (s2 + s3);

  if constexpr (T > 1) {
    const unsigned mask = ((1u << T) - 1u) << (threadIdx.x % 32 / T * T);
#pragma unroll
    for (int off = T / 2; off > 0; off /= 2) sum += __shfl_down_sync(mask, sum, off, T);
  }
  if (lane == 0) {
    const global_index_type r = a.row_idx ? a.row_idx[i] : i;
    y[r] = finish(alpha, sum, beta, y, r);
  }
}

}  // namespace

template <typename V>
void spmv_cuda(const hll_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  const global_index_type threads = a.rows * a.threads_per_row;
  const auto grid = static_cast<unsigned>((threads + block_threads - 1) / block_threads);
  switch (a.threads_per_row) {
    case 2: hll_kernel<V, 2><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
    case 4: hll_kernel<V, 4><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
    default: hll_kernel<V, 1><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
  }
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

template void spmv_cuda(const hll_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const hll_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::hll
