// CUDA SELL-C-sigma: R (1 or 2) adjacent rows of a slice per thread; every thread of a warp
// runs to the slice's width (no divergence, no row lengths), so the loop is unrolled with
// independent loads in flight. R = 2 reads each column pair with one vector load. 16-bit column
// offsets are relative to the thread's positions, so no load waits for perm.
//
// With x windows (sell.hpp), window_kernel: a thread block per window block of 64 slices first
// copies x[window_begin, window_end) into shared memory, so that a warp's 32 gathers cost a few
// shared-memory wavefronts instead of up to 32 L2 sectors (csr-split's bound, local_kernels/
// README.md). Its warps take the block's slices one by one (sorted longest first); a slice wider
// than chunk_steps is cut into chunks whose partial sums meet in shared memory and are added in
// chunk order after the block's barrier, so that one long row does not hold the block up. Where
// the builder spilled a block's top-slice rows (sell.hpp), window_kernel<..., Spill = true> first
// sums each spilled row with one warp, and the top slice adds its slots' sums and then the spill's
// after the barrier.
//
// The plain kernel's tuning constants are those of its first version (the `--format all` runs of
// local_kernels/README.md compare sell, sell-c32-s1 and sell-c64-r2); the x-window constants are
// measured (runs 82-95, below).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <type_traits>
#include <utility>

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

// ---- x windows --------------------------------------------------------------------------------

/// Threads per window block and the blocks per SM their registers allow (at most 42 registers;
/// ptxas gives 40, and spills 52 bytes in double with perm and 16-bit columns). Measured
/// on one H200 on lognormal blocks (jobs/results/2026-11-26_h200_x_windows, runs 82-86): 512
/// threads at 3 blocks ran 1.31x cuSPARSE where 56 registers (2 blocks) ran 1.24x, 256 threads
/// 1.10-1.13x and 1024 threads 1.09x.
constexpr int window_threads = 512;
constexpr int window_min_blocks = 3;
constexpr int window_slices = window_rows / 32;
constexpr int slices_per_lane = window_slices / 32;
/// Slices wider than this many steps are cut into chunks of it (doubled per block until at most
/// max_chunks chunks remain); 16-64 measured within 4% (runs 84-85).
constexpr offset_type chunk_steps = 64;
constexpr int max_chunks = 32;
/// Loads in flight per lane in a spill item (2: the kernel is inlined into window_kernel's 40
/// registers; spilled rows are a few hundred entries, a few trips of the warp).
constexpr int spill_unroll = 2;

/// Where a window block's gathers read x: its staged window, or global memory.
template <typename V, bool Staged>
struct x_source;
template <typename V>
struct x_source<V, true> {
  const V* staged;
  index_type begin;
  __device__ __forceinline__ V operator()(index_type col) const { return staged[col - begin]; }
};
template <typename V>
struct x_source<V, false> {
  const V* __restrict__ x;
  __device__ __forceinline__ V operator()(index_type col) const { return __ldg(x + col); }
};

/// The chunks of one window block (window_kernel's plan, in shared memory).
struct window_plan {
  offset_type slice_begin[window_slices + 1];  ///< slice_ptr of the block's slices, read once
  int item_start[window_slices + 1];   ///< slice q's items: [item_start[q], item_start[q + 1]), after the spill's
  int chunk_start[window_slices + 1];  ///< slice q's partial sums, where it defers them
  unsigned char item_slice[32 + window_slices + max_chunks];  ///< from item `spill` on
  unsigned char deferred[window_slices];  ///< the slices that defer their sums, ascending
  offset_type chunk;  ///< steps per item of a cut slice
  int next;           ///< the next item a warp takes
  int cut;            ///< partial sums of deferred slices (0: none)
  int n_deferred;     ///< entries of `deferred`
  int spill;          ///< top-slice rows with a spill: lanes [0, spill) of slice 0, the block's first items
};

/// Partial sums slice q keeps in part[]: one per chunk of a cut slice, and for the top slice where
/// rows spill, its own (one per chunk, or one) and the spill's.
__device__ __forceinline__ int deferred_sums(int q, int items, int spill) {
  return q == 0 && spill > 0 ? items + 1 : items > 1 ? items : 0;
}

/// Warp 0: one item per spilled top-slice row (Spill), then the items of the block's slices
/// [s0, s0 + slices). A slice cut into chunks, and the top slice where its rows spill, defer their
/// sums: each chunk (and the spill) writes partial sums to part[], added after the block's barrier.
template <bool Spill>
__device__ void plan_window(const offset_type* __restrict__ slice_ptr, const offset_type* __restrict__ spill_ptr,
                            global_index_type s0, int slices, window_plan& plan) {
  const int lane = threadIdx.x % 32;
  int spill = 0;  // the rows spill longest first: the lanes that do are a prefix
  if constexpr (Spill) {
    const offset_type* sp = spill_ptr + 32 * (s0 / window_slices);
    spill = __popc(__ballot_sync(0xffffffffu, sp[lane + 1] > sp[lane]));
  }
  offset_type ptr[slices_per_lane + 1], width[slices_per_lane];
#pragma unroll
  for (int m = 0; m <= slices_per_lane; ++m) {
    const int q = lane * slices_per_lane + m;
    ptr[m] = q <= slices ? slice_ptr[s0 + q] : 0;
    if (q <= slices && m < slices_per_lane) plan.slice_begin[q] = ptr[m];
  }
  if (lane == 31 && slices == window_slices) plan.slice_begin[slices] = ptr[slices_per_lane];
#pragma unroll
  for (int m = 0; m < slices_per_lane; ++m)
    width[m] = lane * slices_per_lane + m < slices ? (ptr[m + 1] - ptr[m]) / 32 : 0;
  offset_type k = chunk_steps;
  for (;;) {  // the smallest k = chunk_steps * 2^i that leaves at most max_chunks chunks
    offset_type count = 0;
#pragma unroll
    for (int m = 0; m < slices_per_lane; ++m) count += width[m] > k ? (width[m] + k - 1) / k : 0;
    if (lane == 0 && spill > 0) count += width[0] > k ? 1 : 2;  // the spill's sums (and slice 0's own)
    for (int d = 16; d > 0; d /= 2) count += __shfl_xor_sync(0xffffffffu, count, d);
    if (count <= max_chunks) break;
    k *= 2;
  }
  int items[slices_per_lane], mine = 0, cut = 0, defer = 0;
#pragma unroll
  for (int m = 0; m < slices_per_lane; ++m) {
    const int q = lane * slices_per_lane + m;
    items[m] = q >= slices ? 0 : width[m] > k ? static_cast<int>((width[m] + k - 1) / k) : 1;
    mine += items[m];
    cut += deferred_sums(q, items[m], spill);
    defer += deferred_sums(q, items[m], spill) > 0;
  }
  int item_end = mine, cut_end = cut, defer_end = defer;  // inclusive scans over the lanes
  for (int d = 1; d < 32; d *= 2) {
    const int a = __shfl_up_sync(0xffffffffu, item_end, d), b = __shfl_up_sync(0xffffffffu, cut_end, d),
              c = __shfl_up_sync(0xffffffffu, defer_end, d);
    if (lane >= d) {
      item_end += a;
      cut_end += b;
      defer_end += c;
    }
  }
  int at = spill + item_end - mine, cut_at = cut_end - cut, defer_at = defer_end - defer;
#pragma unroll
  for (int m = 0; m < slices_per_lane; ++m) {
    const int q = lane * slices_per_lane + m;
    if (q <= slices) {
      plan.item_start[q] = at;
      plan.chunk_start[q] = cut_at;
    }
    for (int i = 0; i < items[m]; ++i) plan.item_slice[at + i] = static_cast<unsigned char>(q);
    at += items[m];
    if (deferred_sums(q, items[m], spill) > 0) plan.deferred[defer_at++] = static_cast<unsigned char>(q);
    cut_at += deferred_sums(q, items[m], spill);
  }
  if (lane == 31 && slices == window_slices) {
    plan.item_start[slices] = at;
    plan.chunk_start[slices] = cut_at;
  }
  if (lane == 31) {
    plan.cut = cut_at;
    plan.n_deferred = defer_at;
  }
  if (lane == 0) {
    plan.chunk = k;
    plan.next = window_threads / 32;
    plan.spill = spill;
  }
}

/// The block's spill items, its first: item l < plan.spill sums top-slice row l's spill, the
/// warp's lanes along the entries, into the spill's partial sums in part[] (after slice 0's own).
/// Taken first, their round trips overlap the slices' items of the other warps (taken last, they
/// held every block up: 1.2-1.45x the time, run 1). Returns the warp's next item.
template <typename V, typename Source>
__device__ __forceinline__ int spill_items(const sell_view<V>& a, global_index_type block, int item, window_plan& plan,
                                        V* part, Source gather) {
  const int lane = threadIdx.x % 32;
  const int sums = (plan.chunk_start[0] + plan.item_start[1] - plan.item_start[0]) * 32;
  const offset_type* __restrict__ ptr = a.spill_ptr + 32 * block;
  while (item < plan.spill) {
    const offset_type end = ptr[item + 1];
    V sum[spill_unroll] = {};
    for (offset_type k = ptr[item] + lane; k < end; k += spill_unroll * 32) {
      index_type col[spill_unroll];
      V v[spill_unroll];
#pragma unroll
      for (int u = 0; u < spill_unroll; ++u)
        if (k + u * 32 < end) col[u] = __ldcs(a.spill_col + k + u * 32);
#pragma unroll
      for (int u = 0; u < spill_unroll; ++u)
        if (k + u * 32 < end) v[u] = __ldcs(a.spill_val + k + u * 32);
#pragma unroll
      for (int u = 0; u < spill_unroll; ++u)
        if (k + u * 32 < end) sum[u] += v[u] * gather(col[u]);
    }
    static_assert(spill_unroll == 2, "the line below adds the accumulators");
    V total = sum[0] + sum[1];
    for (int d = 16; d > 0; d /= 2) total += __shfl_xor_sync(0xffffffffu, total, d);  // the same in every lane
    if (lane == 0) part[sums + item] = total;
    int taken = 0;
    if (lane == 0) taken = atomicAdd(&plan.next, 1);
    item = __shfl_sync(0xffffffffu, taken, 0);
  }
  return item;
}

/// The block's items, a warp at a time: the spill's first, then the slices'; a whole slice writes
/// y, a chunk of a cut slice (or the spilled top slice) writes its partial sums to `part`.
template <typename V, bool Permuted, bool Offsets, bool Spill, typename Source>
__device__ __forceinline__ void window_items(const sell_view<V>& a, V alpha, V beta, V* __restrict__ y,
                                             global_index_type s0, int slices, window_plan& plan, V* part,
                                             Source gather) {
  const int lane = threadIdx.x % 32;
  const int items = plan.item_start[slices];  // (the spill's included)
  // The warp's next item: taken before the current one in float (run 94 against 95: 1.16-1.20x
  // faster), after it in double (where the live register made ptxas spill more: 1-2% slower).
  constexpr bool take_early = sizeof(V) == sizeof(float);
  int item = threadIdx.x / 32;
  if constexpr (Spill) item = spill_items(a, s0 / window_slices, item, plan, part, gather);
  while (item < items) {
    int taken = 0;
    if (take_early && lane == 0) taken = atomicAdd(&plan.next, 1);
    const int q = plan.item_slice[item];
    int cut = plan.item_start[q + 1] - plan.item_start[q] > 1;
    if constexpr (Spill) cut |= q == 0 && plan.spill > 0;  // deferred
    const global_index_type s = s0 + q, first = s * 32 + lane;
    const offset_type begin = plan.slice_begin[q], width = (plan.slice_begin[q + 1] - begin) / 32;
    const int chunk = item - plan.item_start[q];
    const offset_type j0 = cut ? chunk * plan.chunk : 0, j1 = cut ? min(width, j0 + plan.chunk) : width;
    const V* __restrict__ vals = a.values + begin + lane;
    columns<Offsets> cols;
    if constexpr (Offsets)
      cols.p = a.col_offset + begin + lane;
    else
      cols.p = a.col_idx + begin + lane;
    const bool writes = !cut && first < a.rows;
    const global_index_type row = Permuted && writes ? static_cast<global_index_type>(__ldcs(a.perm + first)) : first;

    V sum[unroll] = {};
    // unroll steps per trip, the last trip's steps past j1 predicated off: a slice's last 1-3
    // steps cost one round trip, not one each.
    for (offset_type j = j0; j < j1; j += unroll) {
      V v[unroll][1];
      index_type col[unroll][1];
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (j + u < j1) cols.load((j + u) * 32, first, col[u]);
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (j + u < j1) load_rows<1>(vals + (j + u) * 32, v[u]);
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (j + u < j1) sum[u] += v[u][0] * gather(col[u][0]);
    }
    const V total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    if (cut)
      part[(plan.chunk_start[q] + chunk) * 32 + lane] = total;
    else if (writes)
      y[row] = beta == V(0) ? alpha * total : alpha * total + beta * y[row];
    if (!take_early && lane == 0) taken = atomicAdd(&plan.next, 1);
    item = __shfl_sync(0xffffffffu, taken, 0);
  }
}

/// Spill: the view has a top-slice spill (a template parameter, so that the kernels without one
/// are the code measured before it: run 2 found an unused spill path 1.18-1.26x slower).
template <typename V, bool Permuted, bool Offsets, bool Spill>
__global__ void __launch_bounds__(window_threads, window_min_blocks)
    window_kernel(sell_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char staged_bytes[];  // V[a.window_capacity]
  V* staged = reinterpret_cast<V*>(staged_bytes);
  __shared__ V part[max_chunks * 32];
  __shared__ window_plan plan;
  const global_index_type all_slices = (a.rows + 31) / 32, s0 = static_cast<global_index_type>(blockIdx.x) * window_slices;
  const int slices = static_cast<int>(all_slices - s0 < window_slices ? all_slices - s0 : window_slices);
  const index_type begin = a.window_begin[blockIdx.x], end = a.window_end[blockIdx.x];
  if (threadIdx.x < 32) plan_window<Spill>(a.slice_ptr, a.spill_ptr, s0, slices, plan);
  const bool stage = end - begin <= a.window_capacity;
  if (stage)
    for (index_type k = threadIdx.x; k < end - begin; k += window_threads) staged[k] = __ldg(x + begin + k);
  __syncthreads();
  if (stage)
    window_items<V, Permuted, Offsets, Spill>(a, alpha, beta, y, s0, slices, plan, part,
                                              x_source<V, true>{staged, begin});
  else
    window_items<V, Permuted, Offsets, Spill>(a, alpha, beta, y, s0, slices, plan, part, x_source<V, false>{x});
  if (plan.cut == 0) return;  // block-uniform: no slice deferred its sums
  __syncthreads();
  // The deferred slices: their chunks' partial sums in chunk order, then the spill's, a warp per
  // slice (plan.deferred: each warp scanning all 64 slices for its own was a fifth of the bench
  // lognormal's stall samples, ncu; listing them took it from 253.4 to 227.7 us on one H200,
  // jobs/results/2026-12-03_h200_deferred_ellr, call 1).
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int d = warp; d < plan.n_deferred; d += window_threads / 32) {
    const int q = plan.deferred[d];
    const int items = plan.item_start[q + 1] - plan.item_start[q];
    const bool spilled = Spill && q == 0 && plan.spill > 0;
    const global_index_type first = (s0 + q) * 32 + lane;
    if (first >= a.rows) continue;
    V total = V(0);
    for (int i = 0; i < items; ++i) total += part[(plan.chunk_start[q] + i) * 32 + lane];
    if (spilled && lane < plan.spill) total += part[(plan.chunk_start[q] + items) * 32 + lane];
    const global_index_type row = Permuted ? static_cast<global_index_type>(__ldcs(a.perm + first)) : first;
    y[row] = beta == V(0) ? alpha * total : alpha * total + beta * y[row];
  }
}

/// Lets `kernel` take window_max_bytes of dynamic shared memory on the current device, once per
/// kernel and device: the call costs host time that an event-timed apply would count.
void allow_window_bytes(const void* kernel) {
  static std::mutex mutex;
  static std::set<std::pair<const void*, int>> allowed;
  int device = 0;
  DSPMV_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (!allowed.insert({kernel, device}).second) return;
  DSPMV_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(window_max_bytes)));
}

template <typename V>
void launch_windows(const sell_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  const auto grid = static_cast<unsigned>((a.rows + window_rows - 1) / window_rows);
  const auto bytes = static_cast<std::size_t>(a.window_capacity) * sizeof(V);  // <= window_max_bytes
  auto go = [&](auto kernel) {
    allow_window_bytes(reinterpret_cast<const void*>(kernel));
    kernel<<<grid, window_threads, bytes, stream>>>(a, alpha, x, beta, y);
  };
  auto with_spill = [&](auto spill) {
    constexpr bool S = decltype(spill)::value;
    const bool permuted = a.perm != nullptr, offsets = a.col_offset != nullptr;
    if (permuted && offsets)
      go(window_kernel<V, true, true, S>);
    else if (permuted)
      go(window_kernel<V, true, false, S>);
    else if (offsets)
      go(window_kernel<V, false, true, S>);
    else
      go(window_kernel<V, false, false, S>);
  };
  if (a.spill_ptr != nullptr)
    with_spill(std::true_type{});
  else
    with_spill(std::false_type{});
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

}  // namespace

template <typename V>
void spmv_cuda(const sell_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  DSPMV_REQUIRE(a.slice_size % (32 * a.rows_per_thread) == 0 && (a.rows_per_thread == 1 || a.rows_per_thread == 2),
                "sell::spmv_cuda: needs R in {1, 2} and C a multiple of 32 R");
  if (a.window_begin != nullptr) {
    DSPMV_REQUIRE(a.slice_size == 32 && a.rows_per_thread == 1, "sell::spmv_cuda: x windows need C = 32, R = 1");
    launch_windows(a, alpha, x, beta, y, stream);
    return;
  }
  if (a.rows_per_thread == 2)
    launch<V, 2>(a, alpha, x, beta, y, stream);
  else
    launch<V, 1>(a, alpha, x, beta, y, stream);
}

template void spmv_cuda(const sell_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const sell_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::sell
