// CUDA panel SpMV: one thread block of 512 threads per panel, in dispatch order. The panel's
// slots live in shared memory; each round, thread t takes stored entries t and t + 512 of the
// round (a warp's 32 consecutive entries in column order: few x sectors where columns repeat),
// adds its products to their slots (no slot twice in a round, so no atomics), and a barrier
// closes the round. Then each panel row sums its slots in order and writes y, or its part's sum;
// where rows are split, join_parts_kernel then adds each split row's parts in order and writes
// its y.
//
// Tuning (one H200, jobs/results/2026-11-27_h200_panels, the prototype of run 122 on rmat:22:16
// in rcm order): 2 entries per thread per round ran 325-333 us, 4 entries 334-373 us (larger
// rounds need more padding); panels of 8192 rows and 131072 entries beat 2048/32768 (424 us) and
// 16384/262144 (468 us). Smaller blocks get smaller panels (panel.hpp, target_panels).
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "local_kernels/cache_hints.cuh"
#include "local_kernels/panel/panel.hpp"

namespace distspmv::panel {
namespace {

template <typename V>
__global__ void __launch_bounds__(block_threads)
    panel_kernel(const panel_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  extern __shared__ unsigned char shared_bytes[];
  V* sums = reinterpret_cast<V*>(shared_bytes);
  const index_type p = a.dispatch[blockIdx.x];  // dispatch_order: where it pays, the largest panels first
  const index_type first = a.panel_row[p], rows = a.panel_row[p + 1] - first;
  const std::uint16_t* sb = a.slot_begin + first + p;
  const int slots = sb[rows];
  for (int s = threadIdx.x; s < slots; s += block_threads) sums[s] = V(0);
  __syncthreads();
  const offset_type end = a.panel_entry[p + 1];
  for (offset_type k = a.panel_entry[p] + threadIdx.x; k < end; k += round_entries) {  // one round
    V v[entries_per_thread];
    index_type c[entries_per_thread];
    unsigned s[entries_per_thread];
#pragma unroll
    for (int u = 0; u < entries_per_thread; ++u) {  // rounds are whole: every load is in range
      v[u] = cache::stream_load(a.values + k + u * block_threads);
      c[u] = cache::stream_load(a.col_idx + k + u * block_threads);
      s[u] = cache::stream_load(a.slot + k + u * block_threads);
    }
#pragma unroll
    for (int u = 0; u < entries_per_thread; ++u) v[u] *= __ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < entries_per_thread; ++u)
      if (s[u] != padding_slot) sums[s[u]] += v[u];
    __syncthreads();
  }
  for (index_type i = threadIdx.x; i < rows; i += block_threads) {
    V sum = 0;
    for (int q = sb[i]; q < sb[i + 1]; ++q) sum += sums[q];
    const index_type r = a.row_out == nullptr ? first + i : a.row_out[first + i];
    if (r < 0) a.part_sums[~r] = sum;
    else y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0 never reads y
  }
}

/// A thread per split row: its parts' sums in order.
template <typename V>
__global__ void __launch_bounds__(256) join_parts_kernel(const panel_view<V> a, V alpha, V beta, V* __restrict__ y) {
  const index_type s = blockIdx.x * 256 + threadIdx.x;
  if (s >= a.splits) return;
  V sum = 0;
  for (index_type j = a.split_part[s]; j < a.split_part[s + 1]; ++j) sum += a.part_sums[j];
  const index_type r = a.split_row[s];
  y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

}  // namespace

template <typename V>
void spmv_cuda(const panel_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.panels == 0) return;
  const std::size_t shared = static_cast<std::size_t>(a.max_slots) * sizeof(V);
  if (shared > 48 * 1024)  // the default parameters stay within 48 KiB; larger panels need the opt-in
    DSPMV_CUDA_CHECK(cudaFuncSetAttribute(panel_kernel<V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shared)));
  panel_kernel<V><<<static_cast<unsigned>(a.panels), block_threads, shared, stream>>>(a, alpha, x, beta, y);
  DSPMV_CUDA_CHECK_LAUNCH(stream);
  if (a.splits > 0) {
    join_parts_kernel<V><<<static_cast<unsigned>((a.splits + 255) / 256), 256, 0, stream>>>(a, alpha, beta, y);
    DSPMV_CUDA_CHECK_LAUNCH(stream);
  }
}

template void spmv_cuda(const panel_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const panel_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::panel
