// CUDA SELL-C-sigma: R (1 or 2) adjacent rows of a slice per thread; every thread of a warp
// runs to the slice's width (no divergence, no row lengths), so the loop is unrolled with
// independent loads in flight. R = 2 reads each column pair with one vector load. 16-bit column
// offsets are relative to the thread's positions, so no load waits for perm.
//
// Tuning constants. None is measured yet on the GPU machine (H100/H200); the lead's
// `--format all` run (sell, sell-c32-s1, sell-c64-r2) decides.
#include <cuda_runtime.h>

#include <cstdint>

#include "common/cuda_check.hpp"
#include "local_kernels/sell/sell.hpp"

namespace distspmv::sell {
namespace {

/// Threads per block (seed 001: 128 to 512 give full occupancy; 256 as the CSR kernels).
constexpr int block_threads = 256;
/// Slice columns whose loads are issued before the first product (HOPPER.md: several
/// independent loads in flight; 4 columns x R rows x (value + column) per trip).
constexpr int unroll = 4;

template <typename T>
struct pair_of;
template <>
struct pair_of<float> {
  using type = float2;
};
template <>
struct pair_of<double> {
  using type = double2;
};
template <>
struct pair_of<index_type> {
  using type = int2;
};
template <>
struct pair_of<std::int16_t> {
  using type = short2;
};

/// R consecutive entries of a slice column (rows l .. l + R - 1), read once per SpMV: streaming
/// loads (evict first) leave L2 to x. R = 2 is one 8- or 16-byte load; p is then 2-aligned
/// (slice_ptr and C are multiples of 32, l is even).
template <int R, typename T>
__device__ __forceinline__ void load_rows(const T* p, T (&out)[R]) {
  if constexpr (R == 1) {
    out[0] = __ldcs(p);
  } else {
    static_assert(R == 2, "R is 1 or 2");
    const auto v = __ldcs(reinterpret_cast<const typename pair_of<T>::type*>(p));
    out[0] = v.x;
    out[1] = v.y;
  }
}

/// The R columns of slice column j: 32-bit columns, or 16-bit offsets from the positions (Offsets).
template <bool Offsets>
struct columns;
template <>
struct columns<false> {
  const index_type* __restrict__ p;
  template <int R>
  __device__ __forceinline__ void load(offset_type at, global_index_type, index_type (&out)[R]) const {
    load_rows<R>(p + at, out);
  }
};
template <>
struct columns<true> {
  const std::int16_t* __restrict__ p;
  template <int R>
  __device__ __forceinline__ void load(offset_type at, global_index_type first, index_type (&out)[R]) const {
    std::int16_t off[R];
    load_rows<R>(p + at, off);
#pragma unroll
    for (int q = 0; q < R; ++q) out[q] = static_cast<index_type>(first + q + off[q]);
  }
};

template <typename V, int R, bool Permuted, bool Offsets>
__global__ void __launch_bounds__(block_threads)
    sell_kernel(sell_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type first = (blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x) * R;
  if (first >= a.rows) return;
  const global_index_type c = a.slice_size;
  const global_index_type s = first / c;  // a warp (32 R rows) lies in one slice: C % (32 R) == 0
  const offset_type begin = a.slice_ptr[s];
  const offset_type width = (a.slice_ptr[s + 1] - begin) / c;
  const V* __restrict__ vals = a.values + begin + first % c;
  columns<Offsets> cols;
  if constexpr (Offsets)
    cols.p = a.col_offset + begin + first % c;
  else
    cols.p = a.col_idx + begin + first % c;
  // The rows y gets, loaded first so that their latency hides behind the products (rows are short
  // where SELL is picked: 3-7 trips of the loop).
  global_index_type row[R];
#pragma unroll
  for (int q = 0; q < R; ++q)
    row[q] = Permuted && first + q < a.rows ? static_cast<global_index_type>(__ldcs(a.perm + first + q)) : first + q;

  V sum[unroll][R];
#pragma unroll
  for (int u = 0; u < unroll; ++u)
#pragma unroll
    for (int q = 0; q < R; ++q) sum[u][q] = V(0);
  offset_type j = 0;
  for (; j + unroll <= width; j += unroll) {
    V v[unroll][R];
    index_type col[unroll][R];
    // The columns first: the gathers wait for them, not for the values (run 80: sell-i32 5% faster
    // in double, 2% in float).
#pragma unroll
    for (int u = 0; u < unroll; ++u) cols.load((j + u) * c, first, col[u]);
#pragma unroll
    for (int u = 0; u < unroll; ++u) load_rows<R>(vals + (j + u) * c, v[u]);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int q = 0; q < R; ++q) sum[u][q] += v[u][q] * __ldg(x + col[u][q]);
  }
  for (; j < width; ++j) {
    V v[R];
    index_type col[R];
    load_rows<R>(vals + j * c, v);
    cols.load(j * c, first, col);
#pragma unroll
    for (int q = 0; q < R; ++q) sum[0][q] += v[q] * __ldg(x + col[q]);
  }

  static_assert(unroll == 4, "the loop below adds the unroll accumulators");
#pragma unroll
  for (int q = 0; q < R; ++q) {
    if (first + q < a.rows) {  // the last slice's positions past rows are padding
      const V total = (sum[0][q] + sum[1][q]) + (sum[2][q] + sum[3][q]);
      const global_index_type r = row[q];
      // beta == 0 overwrites y: never read it, so NaN there cannot leak.
      y[r] = beta == V(0) ? alpha * total : alpha * total + beta * y[r];
    }
  }
}

template <typename V, int R>
void launch(const sell_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  const global_index_type threads = (a.rows + R - 1) / R;
  const unsigned grid = static_cast<unsigned>((threads + block_threads - 1) / block_threads);
  const bool permuted = a.perm != nullptr, offsets = a.col_offset != nullptr;
  if (permuted && offsets)
    sell_kernel<V, R, true, true><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  else if (permuted)
    sell_kernel<V, R, true, false><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  else if (offsets)
    sell_kernel<V, R, false, true><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  else
    sell_kernel<V, R, false, false><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

}  // namespace

template <typename V>
void spmv_cuda(const sell_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  DSPMV_REQUIRE(a.slice_size % (32 * a.rows_per_thread) == 0 && (a.rows_per_thread == 1 || a.rows_per_thread == 2),
                "sell::spmv_cuda: needs R in {1, 2} and C a multiple of 32 R");
  if (a.rows_per_thread == 2)
    launch<V, 2>(a, alpha, x, beta, y, stream);
  else
    launch<V, 1>(a, alpha, x, beta, y, stream);
}

template void spmv_cuda(const sell_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const sell_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::sell
