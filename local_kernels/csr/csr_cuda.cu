// CUDA CSR kernels: scalar, vector (sub-warp per row), adaptive (CSR-Adaptive style), merge
// (merge-path, Merrill & Garland SC16) and split (even nonzero tiles, cuSPARSE's split).
//
// Tuning constants (H100, double): see local_kernels/README.md for the measurements.
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "local_kernels/cache_hints.cuh"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/csr/merge_path.hpp"

namespace distspmv::csr {
namespace {

constexpr int block_threads = 256;
/// Match csr_build.cpp: nonzeros of a multi-row adaptive block (its rows, at most 512, take one
/// round of the block's threads).
constexpr int adaptive_stage = 2048;
/// adaptive kernel: threads per block (Threads) and the blocks per SM their registers must allow.
/// Where a small graph's row blocks fit in one wave, the kernel lasts as long as one block's chain
/// of dependent loads and shared-memory sums (ncu, soc-Slashdot0902: 523 blocks of 256 threads,
/// 0.66 waves, ~335 instructions per warp at 32 cycles each); 512 threads take half of each chain,
/// four blocks of them per SM. One H200, same call (jobs/results/2026-12-03_h200_window_tail): 512
/// threads made soc-Slashdot0902 (523 blocks) 1.41-1.44x -> 1.51-1.53x cuSPARSE and
/// uk-2007-05@100000 (1490 blocks, several waves) 1.71-1.74x -> 1.64-1.65x; hence 512 only where
/// the blocks fit in one wave of them. 256 threads: 0, no bound, as before (1 let ptxas take 64-96
/// registers instead of 40-48, and uk-2007 ran 1.63x in call 9); its PTX is bb18fd5's.
template <int Threads>
constexpr int adaptive_min_blocks = Threads == 512 ? 4 : 0;
/// Rows up to this length are summed by one thread, longer ones by a warp (H100, rmat:22:16).
constexpr int short_row = 8;
/// split kernel: blocks per SM that its register budget must allow (__launch_bounds__). Where the
/// matrix streams from DRAM (banded rows, lognormal bench), occupancy pays: in float the kernel
/// took 37 registers, 6 blocks per SM (ncu: 72% occupancy, DRAM 55% busy) and ran 338 us against
/// 320 us capped at 32 registers (double: 392 -> 384 us, 6 blocks). Where x's gathers keep the L2
/// cache busy (rmat:22:16, the streamed variant) the cap cost 1-2%, so that variant has none (0:
/// ptxas chooses, as without the second bound; 1 would let it take 56 registers). H100,
/// local_kernels/README.md.
template <typename V, bool Stream>
constexpr int split_min_blocks = Stream ? 0 : sizeof(V) > 4 ? 6 : 8;
/// split and adaptive kernels: lanes that sum a queued row part of up to medium_row entries;
/// longer parts get a warp. split, H100, lognormal bench (rows of 9-64 mostly): 4 lanes ran
/// 359 us in double and 286 us in float, 8 lanes 362 and 293, 16 lanes 384 and 319; rmat:22:16
/// the same within 0.3% (jobs/results/2026-11-22_h100_formats, run 18). adaptive, H200 (16 lanes
/// for every queued row before): uk-2007-05@100000 15.5 -> 13.3 us per kernel, cit-HepPh 7.2 ->
/// 6.6, soc-Slashdot0902 11.0 -> 10.9 (ncu; jobs/results/2026-11-26_h200_small).
constexpr int medium_row_lanes = 4;
constexpr int medium_row = 64;

template <typename V>
__device__ __forceinline__ V finish(V alpha, V sum, V beta, const V* y, global_index_type r) {
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

/// Matrix entries and y past the L2 cache where Stream (cache_hints.cuh), plain otherwise.
template <bool Stream, typename T>
__device__ __forceinline__ T load_matrix(const T* p) {
  if constexpr (Stream) return cache::stream_load(p); else return *p;
}
/// How a CSR stores its values (csr.hpp): in V, not at all (a pattern: every value is 1), or in
/// float (mixed precision: x, y and the sums stay V).
enum class values_kind { stored, ones, f32 };

template <typename V>
values_kind values_kind_of(const csr_view<V>& a) {
  return a.pattern ? values_kind::ones : a.values_f32 ? values_kind::f32 : values_kind::stored;
}

/// Nonzero k's value in V. The adaptive and split kernels are instantiated per values_kind, so
/// that the instantiation for stored values keeps the registers it was tuned with; the others test
/// the view (value_of).
template <bool Stream, values_kind Values, typename V>
__device__ __forceinline__ V value_at(const csr_view<V>& a, offset_type k) {
  if constexpr (Values == values_kind::ones) return V(1);
  else if constexpr (Values == values_kind::f32) return V(load_matrix<Stream>(a.values_f32 + k));
  else return load_matrix<Stream>(a.values + k);
}
template <typename V>
__device__ __forceinline__ V value_of(const csr_view<V>& a, offset_type k) {
  return a.pattern ? V(1) : a.values_f32 ? V(a.values_f32[k]) : a.values[k];
}
template <bool Stream, typename V>
__device__ __forceinline__ void store_y(V* p, V v) {
  if constexpr (Stream) cache::stream_store(p, v); else *p = v;
}

template <typename V>
__global__ void scalar_kernel(csr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (r >= a.rows) return;
  V sum = 0;
  for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) sum += value_of(a, k) * __ldg(x + a.col_idx[k]);
  y[r] = finish(alpha, sum, beta, y, r);
}

template <typename V, int T>
__global__ void vector_kernel(csr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  const global_index_type thread = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  const global_index_type r = thread / T;
  const int lane = threadIdx.x % T;
  if (r >= a.rows) return;  // whole sub-warps leave together (T divides 32)
  V sum = 0;
  const offset_type end = a.row_ptr[r + 1];
  for (offset_type k = a.row_ptr[r] + lane; k < end; k += T) sum += value_of(a, k) * __ldg(x + a.col_idx[k]);
  const unsigned mask = T == 32 ? 0xffffffffu : ((1u << T) - 1u) << (threadIdx.x % 32 / T * T);
#pragma unroll
  for (int off = T / 2; off > 0; off /= 2) sum += __shfl_down_sync(mask, sum, off, T);
  if (lane == 0) y[r] = finish(alpha, sum, beta, y, r);
}

template <typename V>
__device__ V block_sum(V v, V* scratch) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? scratch[threadIdx.x] : V(0);
  if (warp == 0)
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

/// A row queued for a group of lanes: its index relative to the block's first row, and its entries
/// [lo, hi) in the shared stage, kept here so that the lanes read nothing from global memory before
/// summing (H100, lognormal bench: the second read of row_ptr stalled every queued row).
struct queued_row {
  index_type row;
  int lo, hi;
};

/// Groups of Lanes lanes sum the queued rows from the stage, 32 / Lanes rows per warp at a time;
/// the loop bound is uniform across each warp, so its shuffles see whole warps. Lane 0 of a group
/// hands (queued row, sum) to emit.
template <int Threads, int Lanes, typename V, typename Emit>
__device__ __forceinline__ void sum_queued_rows(const V* stage, const queued_row* queue, int n_queued, Emit emit) {
  constexpr int per_warp = 32 / Lanes;
  const int group = threadIdx.x / Lanes, lane = threadIdx.x % Lanes;
  for (int q0 = group - group % per_warp; q0 < n_queued; q0 += Threads / Lanes) {
    const int q = q0 + group % per_warp;
    V sum = 0;
    if (q < n_queued)
      for (int k = queue[q].lo + lane; k < queue[q].hi; k += Lanes) sum += stage[k];
    for (int off = Lanes / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, Lanes);
    if (lane == 0 && q < n_queued) emit(queue[q].row, sum);
  }
}

/// Shared memory of sum_stage_rows: the rows it queues for groups of lanes.
template <int Stage>
struct row_queues {
  queued_row medium[Stage / (short_row + 1) + 1];  ///< more than short_row entries, at most medium_row
  queued_row longer[Stage / (medium_row + 1) + 1];  ///< more than medium_row entries
  int n_medium, n_longer;
};

/// The row phase of the adaptive and split kernels, after the barrier that ends staging: thread t
/// takes rows first + t, first + t + Threads, ... up to `last` (inclusive); `local` maps a row's
/// bounds in row_ptr to its entries in the stage. The thread's first row's bounds (`row_begin`,
/// `row_end`) were loaded before the barrier, so that they arrive with the stage's loads. A row of at
/// most short_row entries is summed by its thread; longer ones are queued and summed by
/// medium_row_lanes lanes (up to medium_row entries) or by a warp. emit(row - first, sum) gets
/// each row once. `q.n_medium` and `q.n_longer` must be zero before the barrier.
template <int Threads, int Stage, typename V, typename Local, typename Emit>
__device__ __forceinline__ void sum_stage_rows(const V* stage, row_queues<Stage>& q, const offset_type* row_ptr,
                                               global_index_type first, global_index_type last, offset_type row_begin,
                                               offset_type row_end, Local local, Emit emit) {
  for (global_index_type r = first + threadIdx.x; r <= last; r += Threads) {
    if (r != first + threadIdx.x) {
      row_begin = row_ptr[r];
      row_end = row_ptr[r + 1];
    }
    const queued_row entry{static_cast<index_type>(r - first), local(row_begin), local(row_end)};
    const int length = entry.hi - entry.lo;
    if (length > medium_row) {
      q.longer[atomicAdd(&q.n_longer, 1)] = entry;
    } else if (length > short_row) {
      q.medium[atomicAdd(&q.n_medium, 1)] = entry;
    } else {
      V sum = 0;
      for (int k = entry.lo; k < entry.hi; ++k) sum += stage[k];
      emit(entry.row, sum);
    }
  }
  __syncthreads();
  sum_queued_rows<Threads, medium_row_lanes>(stage, q.medium, q.n_medium, emit);
  sum_queued_rows<Threads, 32>(stage, q.longer, q.n_longer, emit);
}

// One thread block per row block (CSR-Adaptive, with the reduction split by row length).
//  1. stage:  the block's products a_k * x[col_k] go to shared memory with coalesced loads,
//             every thread issuing its loads before using any (several loads in flight);
//  2. rows:   each thread sums the rows of at most short_row entries serially; longer rows are
//             queued for groups of 4 lanes or for a warp (sum_stage_rows), so one long row in a
//             block of short ones (power-law graphs) no longer stalls a whole warp.
// A block holding one row longer than the stage streams it with all threads instead.
// Stream: the matrix entries and y carry evict-first hints, so that x keeps the L2 cache
// (cache_hints.cuh; the builder sets csr_view::stream_matrix where x's gathers are far apart).
template <typename V, bool Stream, values_kind Values, int Threads>
__global__ void __launch_bounds__(Threads, adaptive_min_blocks<Threads>)
    adaptive_kernel(csr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  __shared__ V stage[adaptive_stage];
  __shared__ V scratch[Threads / 32];
  __shared__ row_queues<adaptive_stage> queues;
  // The block's rows and nonzeros, loaded together: the stage's loads do not wait for row_ptr.
  const global_index_type first = a.row_blocks[blockIdx.x];
  const global_index_type last = a.row_blocks[blockIdx.x + 1];
  const offset_type begin = a.row_block_nnz[blockIdx.x];
  const offset_type end = a.row_block_nnz[blockIdx.x + 1];
  if (last - first > 1) {
    if (threadIdx.x == 0) queues.n_medium = queues.n_longer = 0;
    const int n = static_cast<int>(end - begin);  // <= adaptive_stage by construction
    constexpr int per_thread = adaptive_stage / Threads;
    index_type col[per_thread];
    V val[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int i = threadIdx.x + j * Threads;
      col[j] = i < n ? load_matrix<Stream>(a.col_idx + begin + i) : 0;
      val[j] = i < n ? value_at<Stream, Values>(a, begin + i) : V(0);
    }
    // This thread's first row's bounds, loaded with the stage's entries.
    offset_type begin0 = begin, end0 = begin;
    if (first + threadIdx.x < last) {
      begin0 = a.row_ptr[first + threadIdx.x];
      end0 = a.row_ptr[first + threadIdx.x + 1];
    }
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int i = threadIdx.x + j * Threads;
      if (i < n) stage[i] = val[j] * __ldg(x + col[j]);
    }
    __syncthreads();
    auto local = [begin](offset_type k) { return static_cast<int>(k - begin); };
    sum_stage_rows<Threads>(stage, queues, a.row_ptr, first, last - 1, begin0, end0, local, [&](index_type q, V sum) {
      const global_index_type r = first + q;
      store_y<Stream>(y + r, finish(alpha, sum, beta, y, r));
    });
  } else {
    // One long row: each thread keeps `unroll` independent loads in flight, since the chain
    // column -> x[column] is two dependent memory latencies (rmat:22:16's 98002-entry row took
    // half the kernel's time with one load pair in flight). 2048 loads per block in flight, as 8
    // per thread did with 256 threads.
    constexpr int unroll = adaptive_stage / Threads;
    V part[unroll] = {};
    offset_type k = begin + threadIdx.x;
    if constexpr (Threads == 512) {
      // The last trip's loads past the row's end predicated off: one round trip, not one per load
      // (measured with 512 threads; 256 keep the two loops they were measured with).
      for (; k < end; k += unroll * Threads) {
        index_type c[unroll];
#pragma unroll
        for (int j = 0; j < unroll; ++j)
          if (k + j * Threads < end) c[j] = load_matrix<Stream>(a.col_idx + k + j * Threads);
#pragma unroll
        for (int j = 0; j < unroll; ++j)
          if (k + j * Threads < end) part[j] += value_at<Stream, Values>(a, k + j * Threads) * __ldg(x + c[j]);
      }
    } else {
      for (; k + (unroll - 1) * Threads < end; k += unroll * Threads) {
        index_type c[unroll];
#pragma unroll
        for (int j = 0; j < unroll; ++j) c[j] = load_matrix<Stream>(a.col_idx + k + j * Threads);
#pragma unroll
        for (int j = 0; j < unroll; ++j) part[j] += value_at<Stream, Values>(a, k + j * Threads) * __ldg(x + c[j]);
      }
      for (; k < end; k += Threads) part[0] += value_at<Stream, Values>(a, k) * __ldg(x + load_matrix<Stream>(a.col_idx + k));
    }
    V sum = 0;
#pragma unroll
    for (int j = 0; j < unroll; ++j) sum += part[j];
    sum = block_sum(sum, scratch);
    if (threadIdx.x == 0) store_y<Stream>(y + first, finish(alpha, sum, beta, y, first));
  }
}

// Even nonzero tiles (cuSPARSE's split; csr.hpp): thread block b multiplies the tile_nnz[b + 1] -
// tile_nnz[b] <= split_tile_nnz nonzeros from tile_nnz[b] on, and owns rows tile_rows[b] ..
// tile_rows[b + 1] - 1, the rows that end in its tile. Row tile_rows[b + 1] is left open: the part
// of it in this tile goes to tile_carry[b], and carry_fixup_kernel adds it after the tile that
// owns the row has written y (beta applied there, once).
//  1. stage:  the tile's products go to shared memory with coalesced loads, every thread issuing its
//             loads before using any; each thread also fetches the bounds of its first row;
//  2. rows:   each row's part in the tile ([max(start, tile start), min(end, tile end))) is summed
//             by one thread if it holds at most short_row entries; longer parts are queued, for
//             medium_row_lanes lanes up to medium_row entries, else for a whole warp
//             (sum_queued_rows);
//  3. a tile inside one row (no row ends in it) sums all its products with the whole block.
template <typename V, bool Stream, values_kind Values>
__global__ void __launch_bounds__(split_block_threads, split_min_blocks<V, Stream>)
    split_kernel(csr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  constexpr int items = split_items_per_thread;
  constexpr int tile = static_cast<int>(split_tile_nnz);
  __shared__ V stage[tile];
  __shared__ V scratch[split_block_threads / 32];
  __shared__ row_queues<tile> queues;
  const offset_type begin = a.tile_nnz[blockIdx.x];
  const int n = static_cast<int>(a.tile_nnz[blockIdx.x + 1] - begin);
  const global_index_type first = a.tile_rows[blockIdx.x];
  const global_index_type open = a.tile_rows[blockIdx.x + 1];  // == rows in the last tile
  const global_index_type last = open < a.rows ? open : a.rows - 1;  // last row touching the tile
  const int t = threadIdx.x;

  index_type col[items];
  V val[items];
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = t + j * split_block_threads;
    col[j] = i < n ? load_matrix<Stream>(a.col_idx + begin + i) : 0;
    val[j] = i < n ? value_at<Stream, Values>(a, begin + i) : V(0);
  }

  if (first == open) {  // 3. no row ends here: the whole tile belongs to the open row
    V sum = 0;
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (t + j * split_block_threads < n) sum += val[j] * __ldg(x + col[j]);
    sum = block_sum(sum, scratch);
    if (t == 0) a.tile_carry[blockIdx.x] = sum;
    return;
  }

  // 1. Stage, and this thread's first row's bounds, clipped to the tile (the open row's end to n).
  if (t == 0) queues.n_medium = queues.n_longer = 0;
  offset_type begin0 = begin, end0 = begin;
  if (first + t <= last) {
    begin0 = a.row_ptr[first + t];
    end0 = a.row_ptr[first + t + 1];
  }
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = t + j * split_block_threads;
    if (i < n) stage[i] = val[j] * __ldg(x + col[j]);
  }
  __syncthreads();

  // 2. Rows (sum_stage_rows), clipped to the tile; the open row's part is the tile's carry.
  const offset_type tile_end = begin + n;
  auto clip = [begin, tile_end](offset_type k) {
    return static_cast<int>((k < begin ? begin : k > tile_end ? tile_end : k) - begin);
  };
  sum_stage_rows<split_block_threads>(stage, queues, a.row_ptr, first, last, begin0, end0, clip, [&](index_type q, V sum) {
    const global_index_type row = first + q;
    if (row < open)
      store_y<Stream>(y + row, finish(alpha, sum, beta, y, row));
    else
      a.tile_carry[blockIdx.x] = sum;
  });
}

// Merge-path SpMV (Merrill & Garland, SC16): thread block b owns the merge items (row ends and
// nonzeros) between the host-computed coordinates b and b + 1 (csr_build.cpp), at most
// merge_items_per_block<V>, and each thread merge_items_per_thread<V> of them.
//  1. stage:   the block's products a_k * x[col_k] and its row ends (relative to the block's first
//              nonzero) go to shared memory; every load of a thread is issued before any is used;
//  2. search:  each thread finds its start on the block's part of the path (merge_path.hpp);
//  3. consume: each thread walks its items, storing the partial sum of every row that ends in its
//              range in that row's shared slot, and keeps the partial of the row still open;
//  4. carries: a segmented scan over the threads (segment = a thread that completed a row) gives
//              each thread what the threads before it left of its first completed row;
//  5. write:   y of every row that ends in this block, coalesced, with beta applied here and only
//              here. The open row's partial is the block's carry-out, added by carry_fixup_kernel.
// The summation order depends only on the matrix, so results are deterministic.
template <typename V>
__global__ void __launch_bounds__(merge_block_threads) merge_kernel(csr_view<V> a, V alpha, const V* __restrict__ x,
                                                                    V beta, V* __restrict__ y) {
  constexpr int items = merge_items_per_thread<V>;
  constexpr int tile = static_cast<int>(merge_items_per_block<V>);
  constexpr int warps = merge_block_threads / 32;
  // A row's slot holds its end until the one thread that completes the row overwrites it with the
  // row's sum: each thread reads and writes only the slots of the rows in its range, after the
  // barrier that ends the searches (which read any slot).
  union slot_type {
    int end;
    V sum;
  };
  __shared__ slot_type slot[tile];
  __shared__ V product[tile];
  __shared__ int start_row[merge_block_threads + 1];
  __shared__ V warp_carry[warps];
  __shared__ int warp_completed[warps];

  const global_index_type first_row = a.tile_rows[blockIdx.x];
  const offset_type first_nz = a.tile_nnz[blockIdx.x];
  const int n_rows = static_cast<int>(a.tile_rows[blockIdx.x + 1] - first_row);  // rows that end here
  const int n_nz = static_cast<int>(a.tile_nnz[blockIdx.x + 1] - first_nz);
  const int t = threadIdx.x;

  // 1. Stage, coalesced; x through the read-only path. Every row ending here ends within
  //    [first_nz, first_nz + n_nz], so its relative end fits an int.
  {
    index_type col[items];
    V val[items];
    offset_type end[items];
#pragma unroll
    for (int q = 0; q < items; ++q) {
      const int i = t + q * merge_block_threads;
      col[q] = i < n_nz ? a.col_idx[first_nz + i] : 0;
      val[q] = i < n_nz ? value_of(a, first_nz + i) : V(0);
      end[q] = i < n_rows ? a.row_ptr[first_row + i + 1] : 0;
    }
#pragma unroll
    for (int q = 0; q < items; ++q) {
      const int i = t + q * merge_block_threads;
      if (i < n_nz) product[i] = val[q] * __ldg(x + col[q]);
      if (i < n_rows) slot[i].end = static_cast<int>(end[q] - first_nz);
    }
  }
  __syncthreads();

  // 2. This thread's start; the next thread's start is its end.
  const int diagonal = min(t * items, n_rows + n_nz);
  const slot_type* slots = slot;
  const int row0 = merge_path_rows(diagonal, n_rows, n_nz, [slots](int r) { return slots[r].end; });
  start_row[t] = row0;
  if (t == merge_block_threads - 1) start_row[merge_block_threads] = n_rows;
  __syncthreads();
  const int row_end = start_row[t + 1];
  const int nz_end = min((t + 1) * items, n_rows + n_nz) - row_end;

  // 3. Consume at most `items` items: a row whose end <= the next nonzero is complete.
  int r = row0, k = diagonal - row0;
  V sum = 0;
#pragma unroll
  for (int q = 0; q < items; ++q) {
    if (r < row_end && slot[r].end <= k) {
      slot[r].sum = sum;
      sum = V(0);
      ++r;
    } else if (k < nz_end) {
      sum += product[k];
      ++k;
    }
  }

  // 4. Inclusive segmented scan of (completed a row, open partial) over the threads in order:
  //    combine(earlier, later) = later completed ? later : earlier + later. Within a warp by
  //    shuffles, then across the warps' totals in warp order.
  const int lane = t % 32, warp = t / 32;
  int completed = row_end > row0;
  V carry = sum;
#pragma unroll
  for (int off = 1; off < 32; off *= 2) {
    const V up = __shfl_up_sync(0xffffffffu, carry, off);
    const int up_completed = __shfl_up_sync(0xffffffffu, completed, off);
    if (lane >= off) {
      if (!completed) carry = up + carry;
      completed |= up_completed;
    }
  }
  if (lane == 31) {
    warp_carry[warp] = carry;
    warp_completed[warp] = completed;
  }
  __syncthreads();
  V before = 0;  // inclusive scan of the warps before this one
  for (int w = 0; w < warp; ++w) before = warp_completed[w] ? warp_carry[w] : before + warp_carry[w];
  if (!completed) carry = before + carry;
  // What the threads before this one leave open: the previous thread's inclusive value.
  V carry_in = __shfl_up_sync(0xffffffffu, carry, 1);
  if (lane == 0) carry_in = before;
  if (row_end > row0) slot[row0].sum += carry_in;  // this thread's first completed row
  if (t == merge_block_threads - 1) a.tile_carry[blockIdx.x] = carry;
  __syncthreads();

  // 5. y of the rows that end in this block.
  for (int i = t; i < n_rows; i += merge_block_threads)
    y[first_row + i] = finish(alpha, slot[i].sum, beta, y, first_row + i);
}

// Adds the carry-outs of merge_kernel's or split_kernel's blocks to the rows left open at their
// ends, after the block that completes the row has written its y (so beta was applied once).
// Consecutive blocks that end in the same row (a row spanning several blocks) form a run; the run's
// first block sums the run's carries in block order and updates y once: deterministic, no atomics.
// On rmat:22:16 (32 K tiles) it takes about 10 µs, a chain of dependent loads per thread (ncu,
// H100); finishing the carries inside split_kernel instead was slower (local_kernels/README.md).
template <typename V>
__global__ void __launch_bounds__(block_threads) carry_fixup_kernel(csr_view<V> a, V alpha, V* __restrict__ y) {
  const global_index_type b = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (b >= a.n_tiles) return;
  const index_type row = a.tile_rows[b + 1];  // the row open at block b's end
  if (row >= a.rows || (b > 0 && a.tile_rows[b] == row)) return;  // no open row, or not the run's first
  V carry = 0;
  global_index_type e = b;
  for (; e < a.n_tiles && a.tile_rows[e + 1] == row; ++e) carry += a.tile_carry[e];
  // A run that ended before the row's first nonzero (empty rows before it) carries nothing.
  if (a.tile_nnz[e] > a.row_ptr[row]) y[row] += alpha * carry;
}

template <values_kind K>
using values_constant = std::integral_constant<values_kind, K>;

/// Calls launch(stream_matrix, values) with both as compile-time constants (std::bool_constant,
/// values_constant), for the kernels instantiated per flag. Float values occur only in double.
template <typename V, typename Launch>
void launch_by_flags(bool stream_matrix, values_kind values, Launch launch) {
  auto with_values = [&](auto stream) {
    if (values == values_kind::ones) {
      launch(stream, values_constant<values_kind::ones>{});
    } else if constexpr (sizeof(V) > sizeof(float)) {
      if (values == values_kind::f32)
        launch(stream, values_constant<values_kind::f32>{});
      else
        launch(stream, values_constant<values_kind::stored>{});
    } else {
      launch(stream, values_constant<values_kind::stored>{});
    }
  };
  if (stream_matrix)
    with_values(std::true_type{});
  else
    with_values(std::false_type{});
}

/// The current GPU's SMs, asked once per device (an attribute query per apply would cost host time
/// that an event-timed apply counts).
global_index_type sm_count() {
  static std::mutex mutex;
  static std::map<int, int> count;
  int device = 0;
  DSPMV_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  auto [at, fresh] = count.try_emplace(device, 0);
  if (fresh) DSPMV_CUDA_CHECK(cudaDeviceGetAttribute(&at->second, cudaDevAttrMultiProcessorCount, device));
  return at->second;
}

unsigned grid_for(global_index_type threads) {
  return static_cast<unsigned>((threads + block_threads - 1) / block_threads);
}

}  // namespace

template <typename V>
void spmv_cuda(const csr_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.rows == 0) return;
  switch (a.algorithm) {
    case kernel::scalar:
      scalar_kernel<<<grid_for(a.rows), block_threads, 0, stream>>>(a, alpha, x, beta, y);
      break;
    case kernel::vector: {
      const unsigned grid = grid_for(a.rows * a.threads_per_row);
      switch (a.threads_per_row) {
        case 2: vector_kernel<V, 2><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
        case 4: vector_kernel<V, 4><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
        case 8: vector_kernel<V, 8><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
        case 16: vector_kernel<V, 16><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
        default: vector_kernel<V, 32><<<grid, block_threads, 0, stream>>>(a, alpha, x, beta, y); break;
      }
      break;
    }
    case kernel::adaptive:
      launch_by_flags<V>(a.stream_matrix, values_kind_of(a), [&](auto stream_matrix, auto values) {
        const auto blocks = static_cast<unsigned>(a.n_row_blocks);
        if (a.n_row_blocks <= adaptive_min_blocks<512> * sm_count())
          adaptive_kernel<V, stream_matrix(), values(), 512><<<blocks, 512, 0, stream>>>(a, alpha, x, beta, y);
        else
          adaptive_kernel<V, stream_matrix(), values(), 256><<<blocks, 256, 0, stream>>>(a, alpha, x, beta, y);
      });
      break;
    case kernel::merge:
    case kernel::split:
      if (a.algorithm == kernel::merge)
        merge_kernel<<<static_cast<unsigned>(a.n_tiles), merge_block_threads, 0, stream>>>(a, alpha, x, beta, y);
      else
        launch_by_flags<V>(a.stream_matrix, values_kind_of(a), [&](auto stream_matrix, auto values) {
          split_kernel<V, stream_matrix(), values()>
              <<<static_cast<unsigned>(a.n_tiles), split_block_threads, 0, stream>>>(a, alpha, x, beta, y);
        });
      DSPMV_CUDA_CHECK_LAUNCH(stream);
      // Rows split between blocks; with one block nothing is carried.
      if (a.n_tiles > 1) carry_fixup_kernel<<<grid_for(a.n_tiles), block_threads, 0, stream>>>(a, alpha, y);
      break;
  }
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

template void spmv_cuda(const csr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const csr_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::csr
