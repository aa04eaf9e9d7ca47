// compute_row_statistics of a CSR block in GPU memory (DESIGN.md §11): the selector's statistics
// without a host copy of the block. Two kinds of pass:
//
//   row_sums_kernel, one thread per row, a block per window of 256 rows (the host sorts row
//   lengths within such windows): integer sums and extremes of the row lengths, the slots of
//   32-row slices as they are (a warp is a slice) and after sorting the window's lengths
//   (cub::BlockRadixSort, descending: slice j's longest row is then the window's entry 32j), and
//   the smallest and largest col - row of the block (the first and last column of each row:
//   columns are sorted within a row, device_csr.hpp);
//   window_sums_kernel, 256 threads x 8 rows per 2048-row block of SELL's x windows: the slots of
//   32-row slices after sorting the block's lengths (cub::BlockRadixSort), also with the top slice
//   capped as sell-w's builders cap it, the entries and rows it spills (sell/spill_cap.cuh), and
//   the nonzeros of blocks whose columns span few enough for the window to be staged (window_fit);
//   mark_diagonals_kernel, over tiles of nonzeros: a bitmap over the offsets [lo, lo + bits)
//   gets one bit per distinct col - row, new bits counted. Windows of at most 2^30 offsets
//   (128 MiB) cover [smallest, largest] until the count passes the host's cap (4097).
//
// Equal to the host version on download_csr(a), field by field, for a valid block: the integer
// fields exactly; the host sums the squared row lengths and the slice slots in double, here in
// 64-bit integers converted once, so mean, stddev and the paddings (computed by the same host
// function, detail::finish_row_statistics) are bitwise equal while those sums stay below 2^53
// (9e15: nnz * max_length below that), and can differ in the last bits beyond. diagonals is
// min(distinct offsets, 4097), as the host's set gives it. hdia_padding comes from HDIA's GPU
// builder's first pass (hdia::hack_slots_cuda), exact as on the host.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/thread/thread_search.cuh>
#include <cuda/functional>
#include <thrust/execution_policy.h>
#include <thrust/logical.h>

#include "common/cuda_check.hpp"
#include "local_kernels/format_selector.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "local_kernels/sell/sell.hpp"
#include "local_kernels/sell/spill_cap.cuh"

namespace distspmv {

namespace {

// The host version's windows and slices; not tuning constants.
constexpr int window_rows = 256;
constexpr int slice_rows = 32;
// Tuning constants. Not measured on the GPU yet (written without GPU access): tiles of 2048
// nonzeros, 256 threads x 8; the kernels loop beyond 2^16 blocks (about 30 times what an H100
// holds at once).
constexpr int tile_threads = 256;
constexpr int tile_items = 8;
constexpr unsigned max_blocks = 1u << 16;
/// Offsets per bitmap window: 2^30 bits = 128 MiB; a block spans at most rows + cols offsets.
constexpr unsigned long long window_offsets = 1ull << 30;

/// What row_sums_kernel accumulates over the whole block (one copy in device memory).
struct row_sums {
  unsigned long long min_length = ULLONG_MAX, max_length = 0, empty_rows = 0, sum2 = 0, sell32_slots = 0,
                     sorted_slots = 0;
  long long min_offset = LLONG_MAX, max_offset = LLONG_MIN;  ///< of col - row
};

struct combine_sums {
  __device__ row_sums operator()(const row_sums& a, const row_sums& b) const {
    row_sums c;
    c.min_length = min(a.min_length, b.min_length);
    c.max_length = max(a.max_length, b.max_length);
    c.empty_rows = a.empty_rows + b.empty_rows;
    c.sum2 = a.sum2 + b.sum2;
    c.sell32_slots = a.sell32_slots + b.sell32_slots;
    c.sorted_slots = a.sorted_slots + b.sorted_slots;
    c.min_offset = min(a.min_offset, b.min_offset);
    c.max_offset = max(a.max_offset, b.max_offset);
    return c;
  }
};

__device__ __forceinline__ unsigned long long warp_max(unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
}

/// Row-length sums of windows of 256 rows (block b takes windows b, b + gridDim.x, ...). Rows
/// past the end count as length 0, which changes no maximum and sorts last.
__global__ void __launch_bounds__(window_rows)
    row_sums_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                    global_index_type rows, int end_bit, row_sums* out) {
  using sort_t = cub::BlockRadixSort<unsigned long long, window_rows, 1>;
  using reduce_t = cub::BlockReduce<row_sums, window_rows>;
  __shared__ union {
    typename sort_t::TempStorage sort;
    typename reduce_t::TempStorage reduce;
  } temp;
  const global_index_type windows = (rows + window_rows - 1) / window_rows;
  for (global_index_type w = blockIdx.x; w < windows; w += gridDim.x) {
    const global_index_type r = w * window_rows + threadIdx.x;
    row_sums mine;
    unsigned long long len = 0;
    if (r < rows) {
      const offset_type begin = row_ptr[r], end = row_ptr[r + 1];
      len = static_cast<unsigned long long>(end - begin);
      mine.min_length = len;
      mine.empty_rows = len == 0;
      if (len > 0) {
        mine.min_offset = col_idx[begin] - r;
        mine.max_offset = col_idx[end - 1] - r;
      }
    }
    mine.max_length = len;
    mine.sum2 = len * len;
    // A warp's 32 rows are one slice (windows start at multiples of 256).
    const unsigned long long slice_max = warp_max(len);
    if (threadIdx.x % slice_rows == 0) mine.sell32_slots = slice_rows * slice_max;
    unsigned long long key[1] = {len};
    sort_t(temp.sort).SortDescending(key, 0, end_bit);  // thread t holds the window's t-th longest
    if (threadIdx.x % slice_rows == 0) mine.sorted_slots = slice_rows * key[0];
    __syncthreads();  // temp.sort is reused as temp.reduce
    const row_sums total = reduce_t(temp.reduce).Reduce(mine, combine_sums());
    if (threadIdx.x == 0) {
      atomicMin(&out->min_length, total.min_length);
      atomicMax(&out->max_length, total.max_length);
      atomicAdd(&out->empty_rows, total.empty_rows);
      atomicAdd(&out->sum2, total.sum2);
      atomicAdd(&out->sell32_slots, total.sell32_slots);
      atomicAdd(&out->sorted_slots, total.sorted_slots);
      atomicMin(&out->min_offset, total.min_offset);
      atomicMax(&out->max_offset, total.max_offset);
    }
    __syncthreads();  // before the next window's sort reuses temp
  }
}

/// What window_sums_kernel adds up (one copy in device memory).
struct window_totals {
  unsigned long long slots = 0, capped_slots = 0, spilled = 0, spilled_rows = 0, fit_nnz = 0;
};

/// Sums over the 2048-row blocks of SELL's x windows (block b takes blocks b, b + gridDim.x, ...):
/// the slots of 32-row slices after sorting the block's row lengths (thread t holds the block's
/// ranks 8t .. 8t + 7 after the sort, so slice j's longest row is thread 4j's first), and again
/// with the top slice (ranks 0-31, threads 0-3) capped as sell-w caps it (warp 0: warp_spill_cap)
/// with the entries and rows it spills, and the nonzeros of blocks whose columns span fewer than
/// fit_columns (a row's first and last column: columns are sorted within a row).
__global__ void __launch_bounds__(tile_threads)
    window_sums_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                       global_index_type rows, int end_bit, long long fit_columns, detail::spill_costs costs,
                       window_totals* out) {
  constexpr int per_thread = sell::window_rows / tile_threads;
  using sort_t = cub::BlockRadixSort<unsigned long long, tile_threads, per_thread>;
  using reduce_t = cub::BlockReduce<long long, tile_threads>;
  __shared__ union {
    typename sort_t::TempStorage sort;
    typename reduce_t::TempStorage reduce;
  } temp;
  __shared__ offset_type top[slice_rows];
  const global_index_type blocks = (rows + sell::window_rows - 1) / sell::window_rows;
  for (global_index_type w = blockIdx.x; w < blocks; w += gridDim.x) {
    const global_index_type first = w * sell::window_rows;
    unsigned long long key[per_thread];
    long long lo = LLONG_MAX, hi = LLONG_MIN;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const global_index_type r = first + threadIdx.x * per_thread + i;
      key[i] = 0;  // rows past the end: length 0, sorted last
      if (r < rows) {
        const offset_type begin = row_ptr[r], end = row_ptr[r + 1];
        key[i] = static_cast<unsigned long long>(end - begin);
        if (end > begin) {
          lo = min(lo, static_cast<long long>(col_idx[begin]));
          hi = max(hi, static_cast<long long>(col_idx[end - 1]));
        }
      }
    }
    sort_t(temp.sort).SortDescending(key, 0, end_bit);
    const long long mine = threadIdx.x % (slice_rows / per_thread) == 0 ? slice_rows * static_cast<long long>(key[0]) : 0;
    if (threadIdx.x < slice_rows / per_thread)
#pragma unroll
      for (int i = 0; i < per_thread; ++i) top[threadIdx.x * per_thread + i] = static_cast<offset_type>(key[i]);
    __syncthreads();  // temp.sort is reused
    const long long total = reduce_t(temp.reduce).Sum(mine);
    __syncthreads();
    lo = reduce_t(temp.reduce).Reduce(lo, cuda::minimum<>{});
    __syncthreads();
    hi = reduce_t(temp.reduce).Reduce(hi, cuda::maximum<>{});
    if (threadIdx.x < slice_rows) {  // warp 0: the top slice's cap and spill
      const offset_type len = top[threadIdx.x];
      const offset_type cap = sell::detail::warp_spill_cap(len, static_cast<offset_type>(costs.slot),
                                                           static_cast<offset_type>(costs.spill),
                                                           static_cast<offset_type>(costs.row));
      offset_type spilled = len > cap ? len - cap : 0, spilled_rows = len > cap;
      for (int d = 16; d > 0; d /= 2) {
        spilled += __shfl_xor_sync(0xffffffffu, spilled, d);
        spilled_rows += __shfl_xor_sync(0xffffffffu, spilled_rows, d);
      }
      if (threadIdx.x == 0) {
        atomicAdd(&out->slots, static_cast<unsigned long long>(total));
        atomicAdd(&out->capped_slots, static_cast<unsigned long long>(total - slice_rows * (top[0] - cap)));
        atomicAdd(&out->spilled, static_cast<unsigned long long>(spilled));
        atomicAdd(&out->spilled_rows, static_cast<unsigned long long>(spilled_rows));
        if (hi >= lo && hi - lo < fit_columns) {
          const global_index_type last = min(rows, first + sell::window_rows);
          atomicAdd(&out->fit_nnz, static_cast<unsigned long long>(row_ptr[last] - row_ptr[first]));
        }
      }
    }
    __syncthreads();  // before the next block's sort reuses temp
  }
}

/// Sets bit (col - row - first_offset) of `bitmap` for each nonzero with col - row in
/// [first_offset, first_offset + bits), and adds the number of bits it newly set to *distinct.
/// Each tile of 2048 nonzeros first finds its first and last row (binary search over all rows),
/// then each nonzero its row among those. One lane per distinct offset of a warp touches the
/// bitmap, and only when the bit is not set yet (a stale read only costs a redundant atomicOr).
__global__ void __launch_bounds__(tile_threads)
    mark_diagonals_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                          global_index_type rows, offset_type nnz, long long first_offset, unsigned long long bits,
                          unsigned* bitmap, unsigned long long* distinct) {
  constexpr offset_type tile = tile_threads * tile_items;
  __shared__ global_index_type tile_rows[2];
  __shared__ unsigned long long tile_new;
  const offset_type tiles = (nnz + tile - 1) / tile;
  for (offset_type t = blockIdx.x; t < tiles; t += gridDim.x) {
    const offset_type k0 = t * tile, k1 = min(nnz, k0 + tile);
    if (threadIdx.x == 0) {
      tile_rows[0] = cub::UpperBound(row_ptr + 1, rows - 1, k0);  // row_ptr[0] = 0 <= k0
      tile_new = 0;
    }
    if (threadIdx.x == 1) tile_rows[1] = cub::UpperBound(row_ptr + 1, rows - 1, k1 - 1) + 1;
    __syncthreads();
    unsigned new_bits = 0;
    for (int i = 0; i < tile_items; ++i) {
      const offset_type k = k0 + i * tile_threads + threadIdx.x;
      unsigned long long bit = ULLONG_MAX;  // none
      if (k < k1) {
        // The last row r of the tile's rows with row_ptr[r] <= k.
        const global_index_type lo = tile_rows[0], hi = tile_rows[1];
        const global_index_type r = lo + cub::UpperBound(row_ptr + lo + 1, hi - lo - 1, k);
        const unsigned long long b = static_cast<unsigned long long>(col_idx[k] - r - first_offset);
        if (b < bits) bit = b;  // also false below first_offset (b wraps around)
      }
      const unsigned peers = __match_any_sync(0xffffffffu, bit);
      if (bit != ULLONG_MAX && static_cast<int>(threadIdx.x % 32) == __ffs(peers) - 1) {
        unsigned* word = bitmap + bit / 32;
        const unsigned mask = 1u << (bit % 32);
        if ((*static_cast<volatile unsigned*>(word) & mask) == 0 && (atomicOr(word, mask) & mask) == 0) ++new_bits;
      }
    }
    if (new_bits > 0) atomicAdd(&tile_new, static_cast<unsigned long long>(new_bits));
    __syncthreads();
    if (threadIdx.x == 0 && tile_new > 0) atomicAdd(distinct, tile_new);
    __syncthreads();  // before the next tile overwrites tile_rows and tile_new
  }
}

/// Distinct col - row offsets of a block with nonzeros, all within [lo, hi], up to the host's cap.
template <typename V>
global_index_type count_diagonals(const device_csr_view<V>& a, long long lo, long long hi, device_storage& scratch) {
  const auto span = static_cast<unsigned long long>(hi - lo) + 1;
  const unsigned long long bits = std::min(span, window_offsets);
  const std::size_t bitmap_bytes = (bits + 31) / 32 * sizeof(unsigned);
  auto* bitmap = static_cast<unsigned*>(scratch.allocate_bytes(bitmap_bytes));
  auto* d_distinct = static_cast<unsigned long long*>(scratch.allocate_bytes(sizeof(unsigned long long)));
  const offset_type tiles = (a.nnz + tile_threads * tile_items - 1) / (tile_threads * tile_items);
  const auto grid = static_cast<unsigned>(std::min<offset_type>(tiles, max_blocks));
  global_index_type distinct = 0;
  for (long long first = lo; first <= hi; first += static_cast<long long>(bits)) {
    DSPMV_CUDA_CHECK(cudaMemsetAsync(bitmap, 0, bitmap_bytes, nullptr));
    DSPMV_CUDA_CHECK(cudaMemsetAsync(d_distinct, 0, sizeof(unsigned long long), nullptr));
    mark_diagonals_kernel<<<grid, tile_threads, 0, nullptr>>>(a.row_ptr, a.col_idx, a.rows, a.nnz, first, bits, bitmap,
                                                               d_distinct);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    distinct += static_cast<global_index_type>(download_array(d_distinct, 1)[0]);
    if (detail::capped_diagonals(distinct) < distinct) break;  // the cap is reached: the rest changes nothing
  }
  return detail::capped_diagonals(distinct);
}

template <typename V>
struct is_one {
  __host__ __device__ bool operator()(V v) const { return v == V(1); }
};

}  // namespace

template <typename V>
row_statistics compute_row_statistics(const device_csr_view<V>& a) {
  row_statistics s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.nnz = a.nnz;
  s.value_bytes = static_cast<int>(sizeof(V));
  if (a.rows <= 0) return s;
  s.pattern = a.nnz > 0 && thrust::all_of(thrust::device, a.values, a.values + a.nnz, is_one<V>{});

  device_storage scratch;  // freed on return: the sums, the bitmap
  const row_sums init;
  auto* d_sums = static_cast<row_sums*>(scratch.allocate_bytes(sizeof(row_sums)));
  DSPMV_CUDA_CHECK(cudaMemcpy(d_sums, &init, sizeof init, cudaMemcpyHostToDevice));
  // Bits a row length can have (at most nnz): the window sort looks at those only.
  int end_bit = 1;
  while (end_bit < 64 && (static_cast<unsigned long long>(a.nnz) >> end_bit) != 0) ++end_bit;
  const global_index_type windows = (a.rows + window_rows - 1) / window_rows;
  row_sums_kernel<<<static_cast<unsigned>(std::min<global_index_type>(windows, max_blocks)), window_rows, 0, nullptr>>>(
      a.row_ptr, a.col_idx, a.rows, end_bit, d_sums);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  row_sums sums;
  DSPMV_CUDA_CHECK(cudaMemcpy(&sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
  auto* d_window = static_cast<window_totals*>(scratch.allocate_bytes(sizeof(window_totals)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(d_window, 0, sizeof(window_totals), nullptr));
  const global_index_type window_blocks = (a.rows + sell::window_rows - 1) / sell::window_rows;
  window_sums_kernel<<<static_cast<unsigned>(std::min<global_index_type>(window_blocks, max_blocks)), tile_threads, 0,
                       nullptr>>>(a.row_ptr, a.col_idx, a.rows, end_bit,
                                  static_cast<long long>(detail::window_fit_columns(s.value_bytes)),
                                  detail::window_spill_costs(s.value_bytes), d_window);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  window_totals window;
  DSPMV_CUDA_CHECK(cudaMemcpy(&window, d_window, sizeof window, cudaMemcpyDeviceToHost));

  s.min_length = static_cast<offset_type>(sums.min_length);
  s.max_length = static_cast<offset_type>(sums.max_length);
  s.empty_rows = static_cast<global_index_type>(sums.empty_rows);
  if (a.nnz > 0) {
    s.bandwidth = std::max(std::llabs(sums.min_offset), std::llabs(sums.max_offset));
    s.diagonals = count_diagonals(a, sums.min_offset, sums.max_offset, scratch);
  }
  detail::finish_row_statistics(s, static_cast<double>(sums.sum2), static_cast<double>(sums.sell32_slots),
                                static_cast<double>(sums.sorted_slots),
                                {static_cast<double>(window.slots), static_cast<double>(window.capped_slots),
                                 static_cast<double>(window.spilled), static_cast<double>(window.spilled_rows),
                                 static_cast<double>(window.fit_nnz)});
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  if (detail::wants_hdia_padding(s)) s.hdia_padding = detail::hdia_padding(hdia::hack_slots_cuda(a, {}), s.nnz);
  return s;
}

template row_statistics compute_row_statistics(const device_csr_view<float>&);
template row_statistics compute_row_statistics(const device_csr_view<double>&);

}  // namespace distspmv
