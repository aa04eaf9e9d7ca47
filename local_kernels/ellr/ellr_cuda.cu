// CUDA ELLR-T: T threads per row over the stripe layout (one kernel per T), then, when the
// matrix has an overflow tail, one warp per tail row adding its remaining entries.
//
// Tuning constants: the block size follows seed 001 and was not swept; the trips (and their
// first one beside the row length) were measured on one H200 (README.md).
#include <cuda_runtime.h>

#include <cstdint>

#include "common/cuda_check.hpp"
#include "local_kernels/ellr/ellr.hpp"

namespace distspmv::ellr {
namespace {

/// Threads per block. Seed 001: 128, 256 and 512 reach full occupancy and T in {1,2,4,8} is
/// best; 256 is the middle and what the CSR kernels use.
constexpr int block_threads = 256;
/// Stripes whose loads are issued before the first product (independent loads in flight and
/// independent accumulators, HOPPER.md). 4 x (value + column) loads per thread per trip; the
/// build's choice of T counts trips of this many stripes.
constexpr int unroll = trip_stripes;
/// Six blocks per SM (40 registers), as before the predicated trips, which took ptxas to 54
/// registers without the bound (four blocks: cage11's 611 blocks no longer fit one wave).
constexpr int min_blocks = 6;

/// Matrix arrays are read once per SpMV: streaming loads (ld.global.cs, evict first) leave L2 to
/// x, which is gathered many times.
template <typename T>
__device__ __forceinline__ T load_stream(const T* p) {
  return __ldcs(p);
}

template <typename V>
__device__ __forceinline__ V finish(V alpha, V sum, V beta, const V* y, global_index_type r) {
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

/// Column of slot `at` of row r: 32-bit columns, or 16-bit offsets from the row (Offsets).
template <bool Offsets>
struct columns;
template <>
struct columns<false> {
  const index_type* __restrict__ p;
  __device__ __forceinline__ index_type operator()(offset_type at, global_index_type) const {
    return load_stream(p + at);
  }
};
template <>
struct columns<true> {
  const std::int16_t* __restrict__ p;
  __device__ __forceinline__ index_type operator()(offset_type at, global_index_type r) const {
    return static_cast<index_type>(r + load_stream(p + at));
  }
};

template <typename V, int T, bool Offsets>
__global__ void __launch_bounds__(block_threads, min_blocks)
    ell_kernel(ellr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type thread = blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x;
  const global_index_type r = thread / T;
  const int lane = static_cast<int>(thread % T);
  if (r >= a.rows) return;  // the T threads of a row leave together (T divides 32 and the block)

  const index_type len = a.row_length[r];
  const index_type stripes = (len + T - 1) / T;
  const offset_type s = a.stripe;
  const V* __restrict__ vals = a.values + (r * T + lane);
  columns<Offsets> col_of;
  if constexpr (Offsets)
    col_of.p = a.col_offset + (r * T + lane);
  else
    col_of.p = a.col_idx + (r * T + lane);

  V sum[unroll] = {};
  // One trip: the loads of stripes [i, i + unroll) below `loaded`, then the gathers and products
  // of the row's entries among them (the lanes past its end skip their padding, so a non-finite
  // x never leaks through it). A row of up to `unroll` stripes costs one round trip of loads and
  // one of gathers (the remainder loop before cost one pair per stripe).
  auto trip = [&](index_type i, index_type loaded) {
    V v[unroll];
    index_type c[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (i + u < loaded) {
        const offset_type at = static_cast<offset_type>(i + u) * s;
        v[u] = load_stream(vals + at);
        c[u] = col_of(at, r);
      }
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if ((i + u) * T + lane < len) sum[u] += v[u] * __ldg(x + c[u]);
  };
  // The first trip's loads do not wait for the row's length: every row stores a.stored_stripes
  // stripes (padding: value 0 and a valid column), so those are in bounds. On one H200 this took
  // cage11 from 9.8-10.7 to 8.8-9.6 us; the predicated trips alone, waiting for the length, ran
  // 10.4-10.9 us (jobs/results/2026-12-03_h200_deferred_ellr, call 1).
  trip(0, a.stored_stripes);
  for (index_type i = unroll; i < stripes; i += unroll) trip(i, stripes);

  V total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
  static_assert(unroll == 4, "the line above adds the unroll accumulators");
  if constexpr (T > 1) {
    const unsigned mask = ((1u << T) - 1u) << (threadIdx.x % 32 / T * T);
#pragma unroll
    for (int off = T / 2; off > 0; off /= 2) total += __shfl_down_sync(mask, total, off, T);
  }
  if (lane == 0) y[r] = finish(alpha, total, beta, y, r);
}

/// One warp per tail row: y[row] += alpha * (its entries past K). Runs after ell_kernel on the
/// same stream, so y[row] already holds the ELL part (and beta * y).
template <typename V>
__global__ void __launch_bounds__(block_threads)
    tail_kernel(ellr_view<V> a, V alpha, const V* __restrict__ x, V* __restrict__ y) {
  const global_index_type w = (blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (w >= a.n_tail) return;  // whole warps leave together
  V sum = 0;
  const offset_type end = a.tail_ptr[w + 1];
  for (offset_type k = a.tail_ptr[w] + lane; k < end; k += 32)
    sum += load_stream(a.tail_values + k) * __ldg(x + load_stream(a.tail_col_idx + k));
#pragma unroll
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) y[a.tail_rows[w]] += alpha * sum;
}

unsigned grid_for(global_index_type threads) {
  return static_cast<unsigned>((threads + block_threads - 1) / block_threads);
}

template <typename V, bool Offsets>
void launch_ell(const ellr_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  const unsigned grid = grid_for(a.rows * a.threads_per_row);
  switch (a.threads_per_row) {
    case 1: ell_kernel<V, 1, Offsets><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
    case 2: ell_kernel<V, 2, Offsets><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
    case 4: ell_kernel<V, 4, Offsets><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
    case 8: ell_kernel<V, 8, Offsets><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
    default: DSPMV_REQUIRE(false, "ellr::spmv_cuda: threads_per_row must be 1, 2, 4 or 8");
  }
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

}  // namespace

template <typename V>
void spmv_cuda(const ellr_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  if (a.col_offset)
    launch_ell<V, true>(a, alpha, x, beta, y, stream);
  else
    launch_ell<V, false>(a, alpha, x, beta, y, stream);
  if (a.n_tail > 0) {
    tail_kernel<<<grid_for(a.n_tail * 32), block_threads, 0, stream>>>(a, alpha, x, y);
    DSPMV_CUDA_CHECK_LAUNCH(stream);
  }
}

template void spmv_cuda(const ellr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const ellr_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::ellr
