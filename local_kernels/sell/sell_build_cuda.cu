// Builds SELL-C-sigma from a CSR block already in GPU memory (DESIGN.md §11): the same slice_ptr,
// col_idx, values and perm as build() on download_csr(a), bitwise, the same statistics and the
// same refusals. Neither the matrix nor its rows come to the host: the host sees a handful of
// numbers (the row pointer's ends, the longest row, the stored entries of each order).
//
//   1. row_lengths_kernel: the first row whose row pointer decreases, and the longest row.
//   2. The window sort (sigma > 1): one stable CUB radix sort of the rows by the key
//      (window, longest row - length): within a window longer rows first, ties in row order,
//      as build()'s std::stable_sort; the sorted rows are perm.
//   3. slice_slots_kernel (a warp per slice: its width * C) and a CUB exclusive sum: slice_ptr
//      of an order. The automatic sigma builds both orders and chooses with build()'s byte model
//      (detail::sorting_pays).
//   4. fill_kernel, over tiles of 32 sorted positions x 32 slice columns: a warp reads a row's
//      stretch (coalesced), the tile turns in shared memory, a warp writes a slice column's 32
//      consecutive slots. Padding gets the sentinel (the row's last column; min(r, cols - 1) for
//      an empty row r or a position r past the rows) and the value +0, as in build(). The same
//      pass checks every column as validate_csr does (in [0, cols), above the previous one of its
//      row).
//   3b. Top-slice spill (detail::spills): top_caps_kernel, a warp per window block, caps the
//      block's first slice at detail::spill_cap's width and counts each top-slice row's excess;
//      the slices' slots and an exclusive sum give slice_ptr again, another the spill's row pointer.
//   4b. spill_fill_kernel copies (and checks) the excess entries, a warp per top-slice row.
//   5. windows_kernel (x_windows): each block of window_rows positions' smallest and largest
//      column (slots and spill), a thread block per window block.
//   6. column_offsets_kernel: where no slot's col - i (i its sorted position) lies beyond an int16
//      (a count over the positions), col - i replaces the 32-bit columns, which are freed.
// The parameters and the row pointer are checked before the sort and the columns during the fill,
// so refusals come in build()'s order (sell_build.cpp checks the parameters first too).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/thread/thread_search.cuh>
#include <cuda/functional>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"
#include "local_kernels/sell/sell.hpp"
#include "local_kernels/sell/spill_cap.cuh"

namespace distspmv::sell {
namespace {

constexpr const char* source = "sell::build_cuda";

// Tuning constants. Not measured on the GPU yet (written without GPU access): 256 threads for the
// per-row and per-slice kernels, as the SpMV kernels; grids capped at 2^16 blocks (about 30 times
// what an H100 holds at once), the kernels loop beyond.
constexpr int block = 256;
constexpr unsigned max_blocks = 1u << 16;
/// fill_kernel: tiles of tile x tile (positions x slice columns), tile_warps warps per tile. C is
/// a multiple of 32, so a tile's positions lie in one slice.
constexpr int tile = 32;
constexpr int tile_warps = 8;

/// "Nothing found" of the atomicMin reductions.
constexpr unsigned long long none = ULLONG_MAX;
/// Lengths are clamped to this in the sort key (a valid row, of distinct int32 columns, is never
/// longer), so the key needs at most 32 + 26 bits (windows of at least 32 of at most 2^31 rows).
constexpr unsigned long long longest_key_length = 0xffffffffull;

unsigned grid_for(offset_type threads) {
  return static_cast<unsigned>(std::min<offset_type>(max_blocks, (threads + block - 1) / block));
}

int bit_width(unsigned long long x) {
  int bits = 0;
  for (; x != 0; x >>= 1) ++bits;
  return bits;
}

/// first_decrease: the first row r with row_ptr[r + 1] < row_ptr[r] (atomicMin); longest: the
/// longest row (atomicMax, one per block).
__global__ void __launch_bounds__(block)
    row_lengths_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows,
                       unsigned long long* first_decrease, unsigned long long* longest) {
  using block_reduce = cub::BlockReduce<unsigned long long, block>;
  __shared__ typename block_reduce::TempStorage temp;
  unsigned long long most = 0;
  const global_index_type stride = static_cast<global_index_type>(gridDim.x) * block;
  for (global_index_type r = blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x; r < rows; r += stride) {
    const offset_type len = row_ptr[r + 1] - row_ptr[r];
    if (len < 0)
      atomicMin(first_decrease, static_cast<unsigned long long>(r));
    else
      most = max(most, static_cast<unsigned long long>(len));
  }
  most = block_reduce(temp).Reduce(most, cuda::maximum<>{});
  if (threadIdx.x == 0 && most > 0) atomicMax(longest, most);
}

/// The sort's keys, (r / sigma) << length_bits | (longest - length), and its values, the rows.
__global__ void __launch_bounds__(block)
    sort_keys_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows, global_index_type sigma,
                     int length_bits, unsigned long long longest, unsigned long long* keys, index_type* rows_out) {
  const global_index_type stride = static_cast<global_index_type>(gridDim.x) * block;
  for (global_index_type r = blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x; r < rows; r += stride) {
    const auto len = min(static_cast<unsigned long long>(row_ptr[r + 1] - row_ptr[r]), longest);
    keys[r] = static_cast<unsigned long long>(r / sigma) << length_bits | (longest - len);
    rows_out[r] = static_cast<index_type>(r);
  }
}

/// moved = 1 where order[i] != i for some i (left alone otherwise).
__global__ void __launch_bounds__(block)
    moved_rows_kernel(const index_type* __restrict__ order, global_index_type rows, int* moved) {
  const global_index_type stride = static_cast<global_index_type>(gridDim.x) * block;
  for (global_index_type i = blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x; i < rows; i += stride)
    if (order[i] != i) {
      *moved = 1;
      return;
    }
}

/// slots[s] = width of slice s * c for the rows taken in `order` (nullptr: row order), one warp
/// per slice; slots[slices] = 0, so that an exclusive sum over slices + 1 entries is slice_ptr.
__global__ void __launch_bounds__(block)
    slice_slots_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ order,
                       global_index_type rows, global_index_type c, global_index_type slices, offset_type* slots) {
  const int lane = threadIdx.x % 32;
  const global_index_type warps = static_cast<global_index_type>(gridDim.x) * (block / 32);
  // The warp's s and so its trip counts are uniform: every lane reaches the shuffles.
  for (global_index_type s = (blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x) / 32; s <= slices;
       s += warps) {
    offset_type width = 0;
    for (global_index_type i = s * c + lane; i < min((s + 1) * c, rows); i += 32) {
      const global_index_type row = order != nullptr ? order[i] : i;
      width = max(width, row_ptr[row + 1] - row_ptr[row]);
    }
    for (int d = 16; d > 0; d /= 2) width = max(width, __shfl_xor_sync(0xffffffffu, width, d));
    if (lane == 0) slots[s] = width * c;
  }
}

/// tiles[s] = fill_kernel's tiles of slice s: (C / 32) row groups x ceil(width / 32) column
/// chunks; tiles[slices] = 0 (for the exclusive sum).
__global__ void __launch_bounds__(block)
    tile_counts_kernel(const offset_type* __restrict__ slice_ptr, global_index_type c, global_index_type slices,
                       offset_type* tiles) {
  const global_index_type stride = static_cast<global_index_type>(gridDim.x) * block;
  for (global_index_type s = blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x; s <= slices;
       s += stride) {
    const offset_type width = s < slices ? (slice_ptr[s + 1] - slice_ptr[s]) / c : 0;
    tiles[s] = c / tile * ((width + tile - 1) / tile);
  }
}

/// The slices, tile by tile (tile_start: exclusive sum of tile_counts_kernel's counts). Records
/// the first nonzero whose column is outside [0, cols) or not above its predecessor in the row,
/// and that nonzero's row: rows hold consecutive nonzeros, so the smallest bad nonzero lies in the
/// smallest row with one, and two atomicMin agree.
template <typename V>
__global__ void __launch_bounds__(tile * tile_warps)
    fill_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                const V* __restrict__ values, global_index_type rows, global_index_type cols, global_index_type c,
                const index_type* __restrict__ order, const offset_type* __restrict__ slice_ptr,
                const offset_type* __restrict__ tile_start, global_index_type slices, offset_type tiles,
                index_type* __restrict__ out_col, V* __restrict__ out_val, unsigned long long* first_bad) {
  // + 1: reading a column of the tile hits 32 different banks.
  __shared__ index_type tile_col[tile][tile + 1];
  __shared__ V tile_val[tile][tile + 1];
  const int lane = threadIdx.x;
  for (offset_type t = blockIdx.x; t < tiles; t += gridDim.x) {
    const global_index_type s = cub::UpperBound(tile_start + 1, slices, t);  // tile_start[s] <= t < tile_start[s + 1]
    const offset_type begin = slice_ptr[s];
    const offset_type width = (slice_ptr[s + 1] - begin) / c;
    const offset_type chunks = (width + tile - 1) / tile;
    const offset_type local = t - tile_start[s];
    const global_index_type l0 = local / chunks * tile;  // the tile's first position within the slice
    const offset_type j0 = local % chunks * tile;          // and its first slice column
    // Along the rows: position s * c + l0 + q, entry j0 + lane of its row.
    for (int q = threadIdx.y; q < tile; q += tile_warps) {
      const global_index_type i = s * c + l0 + q;
      const global_index_type row = i < rows && order != nullptr ? order[i] : i;
      // The sentinel of an empty row, or of a position past the rows: next to its own index.
      index_type col = static_cast<index_type>(cols > 0 ? min(row, cols - 1) : 0);
      V val = V(0);
      if (i < rows) {
        const offset_type k0 = row_ptr[row], len = row_ptr[row + 1] - k0;
        const offset_type j = j0 + lane;
        if (j < len) {
          const offset_type k = k0 + j;
          col = col_idx[k];
          val = values[k];
          if (col < 0 || col >= cols || (j > 0 && col <= col_idx[k - 1])) {
            atomicMin(first_bad, static_cast<unsigned long long>(k));
            atomicMin(first_bad + 1, static_cast<unsigned long long>(row));
          }
        } else if (len > 0) {
          col = col_idx[k0 + len - 1];  // the sentinel: the row's last column
        }
      }
      tile_col[q][lane] = col;
      tile_val[q][lane] = val;
    }
    __syncthreads();
    // Along the slice columns: column j0 + q of the tile's 32 positions, consecutive slots.
    for (int q = threadIdx.y; q < tile && j0 + q < width; q += tile_warps) {
      const offset_type at = begin + (j0 + q) * c + l0 + lane;
      out_col[at] = tile_col[lane][q];
      out_val[at] = tile_val[lane][q];
    }
    __syncthreads();
  }
}

/// build()'s compute_windows: block b of window_rows positions gets [min, max + 1) of its slots'
/// columns (0, 0 without slots). One thread block per window block.
__global__ void __launch_bounds__(block)
    windows_kernel(const index_type* __restrict__ col_idx, const offset_type* __restrict__ slice_ptr,
                   global_index_type slices, global_index_type per_block, global_index_type blocks,
                   const offset_type* __restrict__ spill_ptr, const index_type* __restrict__ spill_col,
                   index_type* __restrict__ begin, index_type* __restrict__ end) {
  using reduce_t = cub::BlockReduce<index_type, block>;
  __shared__ typename reduce_t::TempStorage temp;
  for (global_index_type b = blockIdx.x; b < blocks; b += gridDim.x) {
    const offset_type first = slice_ptr[b * per_block], last = slice_ptr[min(slices, (b + 1) * per_block)];
    index_type lo = INT_MAX, hi = -1;
    for (offset_type at = first + threadIdx.x; at < last; at += block) {
      lo = min(lo, col_idx[at]);
      hi = max(hi, col_idx[at]);
    }
    if (spill_ptr != nullptr)
      for (offset_type at = spill_ptr[32 * b] + threadIdx.x; at < spill_ptr[32 * b + 32]; at += block) {
        lo = min(lo, spill_col[at]);
        hi = max(hi, spill_col[at]);
      }
    lo = reduce_t(temp).Reduce(lo, cuda::minimum<index_type>{});
    __syncthreads();  // temp is reused
    hi = reduce_t(temp).Reduce(hi, cuda::maximum<index_type>{});
    if (threadIdx.x == 0) {  // no slots and no spill: an empty window
      begin[b] = hi < 0 ? 0 : lo;
      end[b] = hi < 0 ? 0 : hi + 1;
    }
    __syncthreads();
  }
}

/// The x windows of build()'s compute_windows into v (arrays in storage).
template <typename V>
void compute_windows(sell_view<V>& v, global_index_type slices, device_storage& storage) {
  const global_index_type per_block = window_rows / v.slice_size, blocks = (slices + per_block - 1) / per_block;
  if (blocks == 0) return;  // no rows: build() stores no windows either
  auto* begin = static_cast<index_type*>(storage.allocate_bytes(2 * blocks * sizeof(index_type)));
  index_type* end = begin + blocks;
  windows_kernel<<<static_cast<unsigned>(std::min<global_index_type>(blocks, max_blocks)), block, 0, nullptr>>>(
      v.col_idx, v.slice_ptr, slices, per_block, blocks, v.spill_ptr, v.spill_col, begin, end);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  v.window_begin = begin;
  v.window_end = end;
  v.window_capacity = detail::window_capacity(download_array(begin, blocks), download_array(end, blocks), sizeof(V));
}

/// build()'s to_column_offsets, one thread per sorted position i walking its slots: with `out`
/// null, counts the slots whose col - i does not fit an int16; else writes col - i.
__global__ void __launch_bounds__(block)
    column_offsets_kernel(const index_type* __restrict__ col_idx, const offset_type* __restrict__ slice_ptr,
                          global_index_type c, global_index_type positions, std::int16_t* __restrict__ out,
                          unsigned long long* misfits) {
  for (global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; i < positions;
       i += static_cast<global_index_type>(gridDim.x) * blockDim.x) {
    const global_index_type s = i / c;
    for (offset_type at = slice_ptr[s] + i % c; at < slice_ptr[s + 1]; at += c) {
      const offset_type off = col_idx[at] - i;
      if (out != nullptr)
        out[at] = static_cast<std::int16_t>(off);
      else if (off < min_column_offset || off > max_column_offset)
        atomicAdd(misfits, 1ull);
    }
  }
}

/// 16-bit column offsets in place of v.col_idx where every slot's fits (build()'s rule).
template <typename V>
void use_column_offsets(sell_view<V>& v, offset_type slots, device_storage& storage) {
  if (slots == 0) return;
  device_storage scratch;
  const global_index_type c = v.slice_size, positions = (v.rows + c - 1) / c * c;
  auto* misfits = static_cast<unsigned long long*>(scratch.allocate_bytes(sizeof(unsigned long long)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(misfits, 0, sizeof(unsigned long long), nullptr));
  column_offsets_kernel<<<grid_for(positions), block, 0, nullptr>>>(v.col_idx, v.slice_ptr, c, positions, nullptr,
                                                                    misfits);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  if (download_array(misfits, 1)[0] > 0) return;
  auto* offsets = static_cast<std::int16_t*>(storage.allocate_bytes(slots * sizeof(std::int16_t)));
  column_offsets_kernel<<<grid_for(positions), block, 0, nullptr>>>(v.col_idx, v.slice_ptr, c, positions, offsets,
                                                                    misfits);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  storage.free_allocation(v.col_idx);
  v.col_idx = nullptr;
  v.col_offset = offsets;
}

/// out[0..n) = exclusive sum of in[0..n) (CUB); returns out[n - 1].
offset_type exclusive_sum(const offset_type* in, offset_type* out, global_index_type n) {
  device_storage scratch;
  std::size_t bytes = 0;
  DSPMV_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
  void* temp = scratch.allocate_bytes(std::max<std::size_t>(bytes, 1));
  DSPMV_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n));
  return download_array(out + n - 1, 1)[0];
}

/// An order of the rows and its slices, each array in its own storage so that the build keeps
/// only what it uses.
struct row_order {
  device_storage perm_storage;
  const index_type* perm = nullptr;  ///< position -> row; nullptr: row order
  device_storage slice_ptr_storage;
  offset_type* slice_ptr = nullptr;  ///< [slices + 1]
  offset_type slots = 0;             ///< slice_ptr[slices]
};

/// build()'s window_order(lengths, sigma) for sigma > 1, into `keep`; nullptr where the key is
/// empty (one window of empty rows: no row moves).
const index_type* sorted_rows(const offset_type* row_ptr, global_index_type rows, global_index_type sigma,
                              unsigned long long longest, device_storage& keep) {
  longest = std::min(longest, longest_key_length);
  const int length_bits = bit_width(longest);
  const int end_bit = length_bits + bit_width(static_cast<unsigned long long>((rows - 1) / sigma));
  if (end_bit == 0) return nullptr;
  device_storage scratch;  // keys in and out, rows in, the sort's temporary
  auto* keys = static_cast<unsigned long long*>(scratch.allocate_bytes(2 * rows * sizeof(unsigned long long)));
  auto* rows_in = static_cast<index_type*>(scratch.allocate_bytes(rows * sizeof(index_type)));
  auto* perm = static_cast<index_type*>(keep.allocate_bytes(rows * sizeof(index_type)));
  sort_keys_kernel<<<grid_for(rows), block, 0, nullptr>>>(row_ptr, rows, sigma, length_bits, longest, keys, rows_in);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  // DeviceRadixSort is stable: equal keys (equal lengths in one window) keep the row order.
  const auto n = static_cast<int>(rows);  // rows <= INT_MAX (detail::check_params)
  std::size_t bytes = 0;
  DSPMV_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, keys + rows, rows_in, perm, n, 0, end_bit));
  void* temp = scratch.allocate_bytes(std::max<std::size_t>(bytes, 1));
  DSPMV_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys + rows, rows_in, perm, n, 0, end_bit));
  return perm;
}

/// The rows in windows of sigma (1: row order) and the slice_ptr of C-row slices over them.
row_order plan_order(const offset_type* row_ptr, global_index_type rows, global_index_type c, global_index_type sigma,
                     unsigned long long longest) {
  row_order o;
  if (sigma > 1 && rows > 0) o.perm = sorted_rows(row_ptr, rows, sigma, longest, o.perm_storage);
  const global_index_type slices = (rows + c - 1) / c;
  o.slice_ptr = static_cast<offset_type*>(o.slice_ptr_storage.allocate_bytes((slices + 1) * sizeof(offset_type)));
  device_storage scratch;
  auto* slots = static_cast<offset_type*>(scratch.allocate_bytes((slices + 1) * sizeof(offset_type)));
  slice_slots_kernel<<<grid_for((slices + 1) * 32), block, 0, nullptr>>>(row_ptr, o.perm, rows, c, slices, slots);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  o.slots = exclusive_sum(slots, o.slice_ptr, slices + 1);
  return o;
}

/// Drops a permutation that moves no row (build() stores none then).
void drop_identity(row_order& o, global_index_type rows) {
  if (o.perm == nullptr) return;
  device_storage scratch;
  auto* moved = static_cast<int*>(scratch.allocate_bytes(sizeof(int)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(moved, 0, sizeof(int), nullptr));
  moved_rows_kernel<<<grid_for(rows), block, 0, nullptr>>>(o.perm, rows, moved);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  if (download_array(moved, 1)[0] == 0) {
    o.perm = nullptr;
    o.perm_storage.clear();
  }
}

/// Top-slice spill, a warp per window block b (C = 32): the lengths of its first 32 positions
/// (longest first; 0 past the rows), detail::spill_cap's width from them (warp_spill_cap: the same
/// sums, the first of equal minima), caps[b] = that width and counts[32 b + l] = each position's excess.
__global__ void __launch_bounds__(block)
    top_caps_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ order,
                    global_index_type rows, global_index_type blocks, offset_type slot_bytes, offset_type spill_bytes,
                    offset_type row_bytes, offset_type* __restrict__ caps, offset_type* __restrict__ counts) {
  const int lane = threadIdx.x % 32;
  const global_index_type warps = static_cast<global_index_type>(gridDim.x) * (block / 32);
  for (global_index_type b = (blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x) / 32; b < blocks;
       b += warps) {
    const global_index_type i = b * window_rows + lane;
    const global_index_type row = i < rows && order != nullptr ? order[i] : i;
    const offset_type len = i < rows ? row_ptr[row + 1] - row_ptr[row] : 0;
    const offset_type cap = detail::warp_spill_cap(len, slot_bytes, spill_bytes, row_bytes);
    counts[32 * b + lane] = max(len - cap, offset_type{0});
    if (lane == 0) caps[b] = cap;
  }
}

/// slots[s] = slice s's slots with the top slices capped (caps), from slice_ptr; slots[slices] = 0.
__global__ void __launch_bounds__(block)
    capped_slots_kernel(const offset_type* __restrict__ slice_ptr, const offset_type* __restrict__ caps,
                        global_index_type slices, offset_type* __restrict__ slots) {
  constexpr global_index_type per_block = window_rows / 32;
  const global_index_type stride = static_cast<global_index_type>(gridDim.x) * block;
  for (global_index_type s = blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x; s <= slices;
       s += stride)
    slots[s] = s == slices ? 0 : s % per_block == 0 ? 32 * caps[s / per_block] : slice_ptr[s + 1] - slice_ptr[s];
}

/// The spilled entries: a warp per top-slice position p = 32 b + l, entries [width, length) of its
/// row to spill_ptr[p] on, checked as fill_kernel checks (first_bad: nonzero, row).
template <typename V>
__global__ void __launch_bounds__(block)
    spill_fill_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                      const V* __restrict__ values, global_index_type rows, global_index_type cols,
                      const index_type* __restrict__ order, const offset_type* __restrict__ slice_ptr,
                      const offset_type* __restrict__ spill_ptr, global_index_type positions,
                      index_type* __restrict__ out_col, V* __restrict__ out_val, unsigned long long* first_bad) {
  const int lane = threadIdx.x % 32;
  const global_index_type warps = static_cast<global_index_type>(gridDim.x) * (block / 32);
  for (global_index_type p = (blockIdx.x * static_cast<global_index_type>(block) + threadIdx.x) / 32; p < positions;
       p += warps) {
    const offset_type out = spill_ptr[p], excess = spill_ptr[p + 1] - out;
    if (excess == 0) continue;
    const global_index_type s = p / 32 * (window_rows / 32), i = p / 32 * window_rows + p % 32;
    const global_index_type row = order != nullptr ? order[i] : i;  // excess > 0: i < rows
    const offset_type width = (slice_ptr[s + 1] - slice_ptr[s]) / 32, k0 = row_ptr[row] + width;
    for (offset_type e = lane; e < excess; e += 32) {
      const offset_type k = k0 + e;
      const index_type col = col_idx[k];
      out_col[out + e] = col;
      out_val[out + e] = values[k];
      if (col < 0 || col >= cols || (width + e > 0 && col <= col_idx[k - 1])) {
        atomicMin(first_bad, static_cast<unsigned long long>(k));
        atomicMin(first_bad + 1, static_cast<unsigned long long>(row));
      }
    }
  }
}

/// The spill of a build: row pointer, entries (filled after the slices).
struct spill_plan {
  device_storage storage;
  offset_type* ptr = nullptr;  ///< [32 * window blocks + 1]; nullptr: nothing spilled
  offset_type entries = 0;
};

/// Caps the top slices of `o` (slice_ptr and slots rewritten) and counts the spill (3b).
spill_plan plan_spill(const offset_type* row_ptr, global_index_type rows, global_index_type slices, row_order& o,
                      std::size_t slot_bytes, std::size_t spill_bytes, std::size_t row_bytes) {
  spill_plan sp;
  const global_index_type blocks = (slices + window_rows / 32 - 1) / (window_rows / 32);
  if (blocks == 0) return sp;
  device_storage scratch;
  auto* caps = static_cast<offset_type*>(scratch.allocate_bytes(blocks * sizeof(offset_type)));
  auto* counts = static_cast<offset_type*>(scratch.allocate_bytes((32 * blocks + 1) * sizeof(offset_type)));
  auto* slots = static_cast<offset_type*>(scratch.allocate_bytes((slices + 1) * sizeof(offset_type)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(counts + 32 * blocks, 0, sizeof(offset_type), nullptr));
  top_caps_kernel<<<grid_for(32 * blocks), block, 0, nullptr>>>(row_ptr, o.perm, rows, blocks,
                                                                static_cast<offset_type>(slot_bytes),
                                                                static_cast<offset_type>(spill_bytes),
                                                                static_cast<offset_type>(row_bytes), caps, counts);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  capped_slots_kernel<<<grid_for(slices + 1), block, 0, nullptr>>>(o.slice_ptr, caps, slices, slots);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  o.slots = exclusive_sum(slots, o.slice_ptr, slices + 1);
  auto* ptr = static_cast<offset_type*>(sp.storage.allocate_bytes((32 * blocks + 1) * sizeof(offset_type)));
  sp.entries = exclusive_sum(counts, ptr, 32 * blocks + 1);
  if (sp.entries > 0)
    sp.ptr = ptr;
  else
    sp.storage.clear();  // nothing spilled: build() stores no spill arrays either
  return sp;
}

/// validate_csr's refusals of the row pointer, in its order, from its ends and its first decrease.
void check_row_pointer(offset_type first, unsigned long long first_decrease, offset_type last, offset_type nnz) {
  using std::to_string;
  if (first != 0) DSPMV_BAD_INPUT(source, "indptr", "does not start at 0");
  if (first_decrease != none) DSPMV_BAD_INPUT(source, "indptr", "decreases at row " + to_string(first_decrease));
  // download_csr(a) has nnz columns: validate_csr words a wrong end as the columns' count.
  if (last != nnz)
    DSPMV_BAD_INPUT(source, "indices", "has " + to_string(nnz) + " entries but indptr ends at " + to_string(last));
}

}  // namespace

template <typename V>
device_built<sell_view<V>> build_cuda(device_csr<V>&& a, const sell_params& params) {
  using std::to_string;
  const device_csr_view<V> d = a.view();
  detail::check_params(d.rows, params, source);
  if (d.rows < 0 || d.cols < 0)
    DSPMV_BAD_INPUT(source, "shape", "negative dimension " + to_string(d.rows) + " x " + to_string(d.cols));
  const global_index_type rows = d.rows, c = params.slice_size;
  const global_index_type slices = (rows + c - 1) / c;

  // 1. The row pointer: its ends, its first decrease, the longest row.
  unsigned long long first_decrease = none, longest = 0;
  {
    device_storage scratch;
    auto* found = static_cast<unsigned long long*>(scratch.allocate_bytes(2 * sizeof(unsigned long long)));
    const unsigned long long init[2] = {none, 0};
    DSPMV_CUDA_CHECK(cudaMemcpy(found, init, sizeof init, cudaMemcpyHostToDevice));
    if (rows > 0) {
      row_lengths_kernel<<<grid_for(rows), block, 0, nullptr>>>(d.row_ptr, rows, found, found + 1);
      DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    }
    const auto f = download_array(found, 2);
    first_decrease = f[0];
    longest = f[1];
  }
  check_row_pointer(download_array(d.row_ptr, 1)[0], first_decrease, download_array(d.row_ptr + rows, 1)[0], d.nnz);

  // 2-3. The order of the rows and its slices; sigma 0 builds both candidates and keeps one.
  int sigma = detail::fixed_sigma(params);
  std::string why;
  row_order chosen;
  if (sigma > 0) {
    chosen = plan_order(d.row_ptr, rows, c, sigma, longest);
  } else {
    const int sorted_sigma = detail::auto_sorted_sigma(params.slice_size);
    row_order unsorted = plan_order(d.row_ptr, rows, c, 1, longest);
    row_order sorted = plan_order(d.row_ptr, rows, c, sorted_sigma, longest);
    const bool sort = detail::sorting_pays(unsorted.slots, sorted.slots, rows, sizeof(V), why);
    sigma = sort ? sorted_sigma : 1;
    chosen = std::move(sort ? sorted : unsorted);
  }
  drop_identity(chosen, rows);
  // 3b. The top-slice spill: the slices change before anything is stored.
  spill_plan spill;
  if (detail::spills(params, sigma))
    spill = plan_spill(d.row_ptr, rows, slices, chosen, sizeof(V) + (params.column_offsets ? 2 : 4),
                       sizeof(V) + sizeof(index_type), static_cast<std::size_t>(params.spill_row_bytes));

  device_built<sell_view<V>> built;
  built.view.rows = rows;
  built.view.cols = d.cols;
  built.view.slice_size = params.slice_size;
  built.view.rows_per_thread = params.rows_per_thread;
  built.view.slice_ptr = chosen.slice_ptr;
  built.view.perm = chosen.perm;
  built.storage.adopt(std::move(chosen.slice_ptr_storage));
  built.storage.adopt(std::move(chosen.perm_storage));  // empty where perm was dropped
  auto* out_col = static_cast<index_type*>(built.storage.allocate_bytes(chosen.slots * sizeof(index_type)));
  auto* out_val = static_cast<V*>(built.storage.allocate_bytes(chosen.slots * sizeof(V)));
  built.view.col_idx = out_col;
  built.view.values = out_val;

  // 4. The fill, tile by tile, with the column checks.
  device_storage scratch;
  auto* first_bad = static_cast<unsigned long long*>(scratch.allocate_bytes(2 * sizeof(unsigned long long)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(first_bad, 0xff, 2 * sizeof(unsigned long long), nullptr));  // none
  if (chosen.slots > 0) {
    auto* tile_start = static_cast<offset_type*>(scratch.allocate_bytes((slices + 1) * sizeof(offset_type)));
    auto* counts = static_cast<offset_type*>(scratch.allocate_bytes((slices + 1) * sizeof(offset_type)));
    tile_counts_kernel<<<grid_for(slices + 1), block, 0, nullptr>>>(chosen.slice_ptr, c, slices, counts);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    const offset_type tiles = exclusive_sum(counts, tile_start, slices + 1);
    const auto grid = static_cast<unsigned>(std::min<offset_type>(max_blocks, tiles));
    fill_kernel<V><<<grid, dim3(tile, tile_warps), 0, nullptr>>>(d.row_ptr, d.col_idx, d.values, rows, d.cols, c,
                                                                  chosen.perm, chosen.slice_ptr, tile_start, slices,
                                                                  tiles, out_col, out_val, first_bad);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  }
  if (spill.ptr != nullptr) {  // 4b. the spill, checked alike (a top slice of width 0 spills everything)
    auto* spill_col = static_cast<index_type*>(built.storage.allocate_bytes(spill.entries * sizeof(index_type)));
    auto* spill_val = static_cast<V*>(built.storage.allocate_bytes(spill.entries * sizeof(V)));
    const global_index_type positions = 32 * ((slices + window_rows / 32 - 1) / (window_rows / 32));
    spill_fill_kernel<V><<<grid_for(32 * positions), block, 0, nullptr>>>(d.row_ptr, d.col_idx, d.values, rows,
                                                                         d.cols, chosen.perm, chosen.slice_ptr,
                                                                         spill.ptr, positions, spill_col, spill_val,
                                                                         first_bad);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    built.view.spill_ptr = spill.ptr;
    built.view.spill_col = spill_col;
    built.view.spill_val = spill_val;
    built.storage.adopt(std::move(spill.storage));
  }
  if (const auto bad = download_array(first_bad, 2); bad[0] != none) {
    const index_type col = download_array(d.col_idx + bad[0], 1)[0];
    throw_bad_entry(source, col, static_cast<global_index_type>(bad[1]), d.cols);
  }

  if (params.x_windows) compute_windows(built.view, slices, built.storage);
  if (params.column_offsets) use_column_offsets(built.view, chosen.slots, built.storage);

  built.stats = detail::sell_stats(rows, d.nnz, chosen.slots, chosen.perm != nullptr, params, sigma, why, sizeof(V),
                                   built.view.col_offset ? sizeof(std::int16_t) : sizeof(index_type),
                                   params.x_windows ? built.view.window_capacity : -1, spill.entries);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<sell_view<float>> build_cuda(device_csr<float>&&, const sell_params&);
template device_built<sell_view<double>> build_cuda(device_csr<double>&&, const sell_params&);

}  // namespace distspmv::sell
