// CUDA HDIA SpMV: one thread per row. A warp's 32 rows lie in one hack (H is a multiple of 32 and
// blocks start at multiples of 32), so the warp shares the hack's diagonal offsets, the values of a
// diagonal are 32 consecutive slots and x[row + offset] is 32 consecutive entries: every access is
// coalesced and there is no column-index array at all.
//
// The warp loads up to 32 of its hack's offsets with one coalesced load (a lane each) and hands
// them out with shuffles, so no x address waits on a memory access; each thread then issues
// `in_flight` value loads and `in_flight` x loads before using any, the hack's last group
// predicated rather than run one diagonal at a time. The first version loaded each offset with a
// broadcast load and kept 4 diagonals in flight: every group waited for its offsets and then
// for x, and it ran at 105% of the copy bandwidth in the CSR byte model on gen:stencil27:200 (H200,
// 628 us). Measured on one H200 (local_kernels/README.md, jobs/results/2026-11-26_h200x2_hdia):
// 8 diagonals in flight with at least 1024 threads per SM (64 registers in double, no spill)
// and constant strides for H = 32 run 481 us there (138%); 4 in flight 521-589 us, 12 or 16 in
// flight (80-105 registers, 2-3 blocks per SM) 550-698 us, 8 in flight capped at 32-40 registers
// (spills) slower still. The same choice is the fastest or within 2% in float.
#include <cuda_runtime.h>

#include <climits>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "local_kernels/hdia/hdia.hpp"

namespace distspmv::hdia {
namespace {

/// 128 threads (rows) per block, 8 blocks per SM: on 2x H200 (gen:stencil27:200)
/// 1 GPU 482.8 -> 476.4 us, 2 GPUs block 254.9 -> 251.0, METIS 269.2 -> 263.9, poisson3d:200
/// 169.1 -> 164.9 against 256 threads, 4 blocks per SM; 64 threads ran within 1% of 128
/// (jobs/results/2026-11-26_h200x2_halo). Same registers.
constexpr int block_threads = 128;
constexpr int warp = 32;
/// Diagonals per thread whose loads are issued before the first use, and the blocks per SM the
/// register budget must allow (64 registers in double: half the SM's threads).
constexpr int in_flight = 8;
constexpr int min_blocks = 8;

template <typename V>
__device__ __forceinline__ V finish(V alpha, V sum, V beta, const V* y, global_index_type r) {
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

/// W: the stored values' type, V or float (mixed precision: a.values_f32).
template <typename V, typename W, int fixed_hack>
__global__ void __launch_bounds__(block_threads, min_blocks)
    hdia_kernel(const hdia_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(block_threads) + threadIdx.x;
  const unsigned lane = threadIdx.x % warp;
  // The whole warp stays for the shuffles; rows past the end (last hack) compute and store nothing.
  if (r - lane >= a.rows) return;
  const bool live = r < a.rows;

  // rows and cols < 2^31 (checked at build), so 32-bit row arithmetic; slot offsets in 64 bits.
  const unsigned H = fixed_hack > 0 ? unsigned{fixed_hack} : static_cast<unsigned>(a.hack_size);
  const unsigned ru = static_cast<unsigned>(r);
  const unsigned h = ru / H;
  const offset_type first = a.hack_offsets[h];
  const int n = static_cast<int>(a.hack_offsets[h + 1] - first);  // <= max_diagonals_per_hack
  const W* stored;
  if constexpr (std::is_same_v<W, V>)
    stored = a.values;
  else
    stored = a.values_f32;
  const W* __restrict__ vals = stored + first * H + (ru - h * H);
  const index_type* __restrict__ offs = a.diag_offsets + first;
  const V* __restrict__ x_row = x + r;
  // Offsets o with 0 <= r + o < cols, i.e. lo <= o <= hi in 32 bits (cols may pass 2^31: hi is
  // clamped, offsets are int32 anyway); none past the end.
  const int lo = -static_cast<int>(ru);
  const long long last = static_cast<long long>(a.cols) - 1 - static_cast<long long>(ru);
  const int hi = !live ? lo - 1 : last < INT_MAX ? static_cast<int>(last) : INT_MAX;

  V sum[4] = {0, 0, 0, 0};
  for (int base = 0; base < n; base += warp, vals += warp * H) {
    const int m = n - base < warp ? n - base : warp;  // the same in the whole warp
    const index_type my_offset = static_cast<int>(lane) < m ? offs[base + lane] : 0;
#pragma unroll 1
    for (int k = 0; k < m; k += in_flight) {
      V v[in_flight], xv[in_flight];
#pragma unroll
      for (int u = 0; u < in_flight; ++u) {
        const int o = __shfl_sync(0xffffffffu, my_offset, (k + u) % warp);
        // Past the hack's diagonals, or a column outside the matrix (top/bottom of a diagonal,
        // rows past the end): no load.
        const bool use = k + u < m && o >= lo && o <= hi;
        v[u] = use ? static_cast<V>(vals[(k + u) * H]) : V(0);
        xv[u] = use ? __ldg(x_row + o) : V(0);
      }
#pragma unroll
      for (int u = 0; u < in_flight; ++u) sum[u % 4] += v[u] * xv[u];
    }
  }
  if (live) y[r] = finish(alpha, (sum[0] + sum[1]) + (sum[2] + sum[3]), beta, y, r);
}

}  // namespace

template <typename V>
void spmv_cuda(const hdia_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  const auto grid = static_cast<unsigned>((a.rows + block_threads - 1) / block_threads);
  // The hack size is a multiple of 32; the registry's 32 gets constant strides (fewer registers).
  auto launch = [&](auto stored) {
    using W = decltype(stored);
    if (a.hack_size == 32)
      hdia_kernel<V, W, 32><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
    else
      hdia_kernel<V, W, 0><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y);
  };
  // Float values only in double (mixed precision); in float W = V either way.
  if (a.values_f32)
    launch(float{});
  else
    launch(V{});
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

template void spmv_cuda(const hdia_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const hdia_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::hdia
