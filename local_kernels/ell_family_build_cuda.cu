// The ELL family's shared GPU build steps (ell_family_build_cuda.hpp): validation, the stable
// sort of rows by length, group widths and their prefix sums, and the slab fill.
//
// Tuning constants. Not measured on the GPU yet (written without GPU access): every kernel is a
// grid-stride loop over rows or entries, 256 threads per block, at most max_blocks blocks
// (8192 x 256 threads are about eight times what an H100 holds at once, 132 SMs x 2048), so the
// grid fills the GPU and stays far below the launch limit for billions of entries.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "local_kernels/ell_family_build_cuda.hpp"

namespace distspmv::ell_family {
namespace {

constexpr int block = 256;
constexpr offset_type max_blocks = 8192;
/// "Nothing found" of the first-bad-row and first-bad-nonzero reductions (atomicMin).
constexpr unsigned long long none = ULLONG_MAX;

unsigned grid_for(offset_type n) {
  return static_cast<unsigned>(std::clamp<offset_type>((n + block - 1) / block, 1, max_blocks));
}

__device__ __forceinline__ offset_type first_thread() {
  return static_cast<offset_type>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ offset_type thread_stride() { return static_cast<offset_type>(gridDim.x) * blockDim.x; }

/// The last s in [0, n) with offsets[s] <= x, given offsets[0] <= x < offsets[n] (non-decreasing).
__device__ __forceinline__ offset_type last_at_most(const offset_type* __restrict__ offsets, offset_type n,
                                                    offset_type x) {
  offset_type lo = 0, hi = n;
  while (hi - lo > 1) {
    const offset_type mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// The first row r whose row pointer decreases (row_ptr[r + 1] < row_ptr[r]), by atomicMin.
__global__ void first_decrease_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows,
                                      unsigned long long* first) {
  for (offset_type r = first_thread(); r < rows; r += thread_stride())
    if (row_ptr[r + 1] < row_ptr[r]) atomicMin(first, static_cast<unsigned long long>(r));
}

/// The first nonzero whose column lies outside [0, cols) or is not greater than the previous
/// column of its row, by atomicMin (row_ptr is valid here: it starts at 0, never decreases and
/// ends at nnz). A column not above its predecessor is only wrong inside a row: a binary search
/// in row_ptr tells whether k starts one, which a valid matrix needs about once per row.
__global__ void first_bad_column_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows,
                                        const index_type* __restrict__ col_idx, offset_type nnz,
                                        global_index_type cols, unsigned long long* first) {
  for (offset_type k = first_thread(); k < nnz; k += thread_stride()) {
    const index_type c = col_idx[k];
    bool bad = c < 0 || c >= cols;
    if (!bad && k > 0 && c <= col_idx[k - 1]) bad = row_ptr[last_at_most(row_ptr, rows, k)] != k;
    if (bad) atomicMin(first, static_cast<unsigned long long>(k));
  }
}

/// *row = the row holding nonzero k (the last r with row_ptr[r] <= k), for the error message.
__global__ void row_of_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows, offset_type k,
                              global_index_type* row) {
  *row = last_at_most(row_ptr, rows, k);
}

/// keys[i] = (window of row i) * 2^32 + (2^32 - 1 - length of row i), ids[i] = i: an ascending
/// stable sort of the keys orders each window by decreasing length, ties in row order. Lengths
/// fit 32 bits: a row's columns are distinct 32-bit indices.
__global__ void length_keys_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows,
                                   global_index_type window, unsigned long long* keys, index_type* ids) {
  for (offset_type i = first_thread(); i < rows; i += thread_stride()) {
    const auto len = static_cast<unsigned long long>(row_ptr[i + 1] - row_ptr[i]);
    const auto w = static_cast<unsigned long long>(window > 0 ? i / window : 0);
    keys[i] = (w << 32) | (0xffffffffull - len);
    ids[i] = static_cast<index_type>(i);
  }
}

__global__ void stored_lengths_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ perm,
                                      global_index_type rows, offset_type cap, index_type* out) {
  for (offset_type i = first_thread(); i < rows; i += thread_stride()) {
    const offset_type r = perm != nullptr ? perm[i] : i;
    out[i] = static_cast<index_type>(min(row_ptr[r + 1] - row_ptr[r], cap));
  }
}

/// widths[g] = max over group g of scale * (row width), into zeroed widths. The lanes of a warp
/// that share a group (all 32 for groups of 32 rows or more, else aligned runs of `group`
/// lanes) reduce by shuffles first: at most one atomicMax per warp and group, none where the
/// group's width already reaches the value (widths only grow, so a stale read only costs an
/// atomic; one group of all rows sees few). The loop bound is the warp's first row, the same on
/// all its lanes, as the shuffles need.
__global__ void group_width_kernel(row_groups g, unsigned long long* widths) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int span = g.group < 32 ? static_cast<int>(g.group) : 32;
  for (offset_type base = first_thread() - lane; base < g.rows; base += thread_stride()) {
    const offset_type i = base + lane;
    unsigned long long w = 0;
    if (i < g.rows) {
      const offset_type len = g.length != nullptr ? g.length[i] : g.row_ptr[i + 1] - g.row_ptr[i];
      const offset_type over = len - g.skip;
      if (over > 0) w = static_cast<unsigned long long>((over + g.divisor - 1) / g.divisor);
    }
    for (int o = span / 2; o > 0; o /= 2) {
      const unsigned long long other = __shfl_xor_sync(0xffffffffu, w, o);
      w = other > w ? other : w;
    }
    if (lane % span == 0 && w > 0) {  // w > 0: row i exists
      const unsigned long long value = w * static_cast<unsigned long long>(g.scale);
      unsigned long long* const width = widths + i / g.group;
      if (value > *static_cast<volatile unsigned long long*>(width)) atomicMax(width, value);
    }
  }
}

/// One thread per stored slot (slab_layout in the header). Slab offsets are multiples of 32 for
/// HLL, PELLR and ELLR, so a warp's 32 slots lie in one slab and its binary search reads the
/// same offsets on every lane. Every slot is written once: no memset, no order dependence.
template <typename V>
__global__ void fill_slabs_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ csr_col,
                                  const V* __restrict__ csr_values, slab_layout l, index_type* __restrict__ col_idx,
                                  V* __restrict__ values) {
  const offset_type t = l.threads_per_row;
  const offset_type stripe = l.slab_rows * t;
  for (offset_type at = first_thread(); at < l.entries; at += thread_stride()) {
    const offset_type s = l.slab_offsets != nullptr ? last_at_most(l.slab_offsets, l.slabs, at) : 0;
    const offset_type j = at - (l.slab_offsets != nullptr ? l.slab_offsets[s] : 0);
    const offset_type k = j / stripe * t + j % t;
    const global_index_type i = s * l.slab_rows + j % stripe / t;
    index_type c = 0;
    V v = V(0);
    if (i < l.rows) {
      const offset_type begin = row_ptr[l.perm != nullptr ? l.perm[i] : i] + l.first_entry;
      const offset_type len = l.row_length != nullptr ? l.row_length[i] : k + 1;
      if (k < len) {
        c = csr_col[begin + k];
        v = csr_values[begin + k];
      } else if (l.sentinel_last_column && len > 0) {
        c = csr_col[begin + len - 1];
      }
    }
    col_idx[at] = c;
    values[at] = v;
  }
}

/// A CUB device algorithm, sized (first call) then run with temporary storage from `scratch`.
template <typename Run>
void run_cub(device_storage& scratch, Run&& run) {
  std::size_t bytes = 0;
  DSPMV_CUDA_CHECK(run(nullptr, bytes));
  bytes = std::max<std::size_t>(bytes, 1);
  void* temp = scratch.allocate_bytes(bytes);
  DSPMV_CUDA_CHECK(run(temp, bytes));
}

}  // namespace

template <typename V>
void validate(const device_csr_view<V>& a, const char* source) {
  using std::to_string;
  if (a.rows < 0 || a.cols < 0)
    DSPMV_BAD_INPUT(source, "shape", "negative dimension " + to_string(a.rows) + " x " + to_string(a.cols));
  if (download_array(a.row_ptr, 1)[0] != 0) DSPMV_BAD_INPUT(source, "indptr", "does not start at 0");
  device_storage scratch;
  auto* first = static_cast<unsigned long long*>(scratch.allocate_bytes(2 * sizeof(unsigned long long)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(first, 0xff, 2 * sizeof(unsigned long long), nullptr));  // none
  if (a.rows > 0) {
    first_decrease_kernel<<<grid_for(a.rows), block, 0, nullptr>>>(a.row_ptr, a.rows, first);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  }
  const unsigned long long decrease = download_array(first, 1)[0];
  if (decrease != none) DSPMV_BAD_INPUT(source, "indptr", "decreases at row " + to_string(decrease));
  const offset_type end = download_array(a.row_ptr + a.rows, 1)[0];
  if (end != a.nnz)  // validate_csr on download_csr(a): nnz columns, the row pointer ending elsewhere
    DSPMV_BAD_INPUT(source, "indices", "has " + to_string(a.nnz) + " entries but indptr ends at " + to_string(end));
  if (a.nnz == 0) return;
  first_bad_column_kernel<<<grid_for(a.nnz), block, 0, nullptr>>>(a.row_ptr, a.rows, a.col_idx, a.nnz, a.cols,
                                                                   first + 1);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  const unsigned long long bad = download_array(first + 1, 1)[0];
  if (bad == none) return;
  const auto k = static_cast<offset_type>(bad);
  auto* row = static_cast<global_index_type*>(scratch.allocate_bytes(sizeof(global_index_type)));
  row_of_kernel<<<1, 1, 0, nullptr>>>(a.row_ptr, a.rows, k, row);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  const global_index_type r = download_array(row, 1)[0];
  const index_type c = download_array(a.col_idx + k, 1)[0];
  throw_bad_entry(source, c, r, a.cols);
}

void sort_rows_by_length(const offset_type* row_ptr, global_index_type rows, global_index_type window,
                         index_type* perm, device_storage& scratch) {
  if (rows == 0) return;
  auto* keys = static_cast<unsigned long long*>(scratch.allocate_bytes(2 * rows * sizeof(unsigned long long)));
  auto* ids = static_cast<index_type*>(scratch.allocate_bytes(rows * sizeof(index_type)));
  length_keys_kernel<<<grid_for(rows), block, 0, nullptr>>>(row_ptr, rows, window, keys, ids);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  // Only the bits the keys use: 32 for the length, then as many as the last window's number needs.
  const global_index_type last_window = window > 0 ? (rows - 1) / window : 0;
  int end_bit = 32;
  while (end_bit < 64 && (last_window >> (end_bit - 32)) != 0) ++end_bit;
  // Radix sort is stable: equal keys keep their input (row) order.
  run_cub(scratch, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys + rows, ids, perm, rows, 0, end_bit, nullptr);
  });
}

void stored_row_lengths(const offset_type* row_ptr, const index_type* perm, global_index_type rows, offset_type cap,
                        index_type* out) {
  if (rows == 0) return;
  stored_lengths_kernel<<<grid_for(rows), block, 0, nullptr>>>(row_ptr, perm, rows, cap, out);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
}

offset_type group_offsets(const row_groups& g, offset_type* offsets, device_storage& scratch) {
  const global_index_type groups = g.rows > 0 ? (g.rows + g.group - 1) / g.group : 0;
  if (offsets == nullptr) offsets = static_cast<offset_type*>(scratch.allocate_bytes((groups + 1) * sizeof(offset_type)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(offsets, 0, (groups + 1) * sizeof(offset_type), nullptr));
  if (groups == 0) return 0;
  static_assert(sizeof(offset_type) == sizeof(unsigned long long), "widths are atomicMax'ed as unsigned 64-bit");
  group_width_kernel<<<grid_for(g.rows), block, 0, nullptr>>>(g, reinterpret_cast<unsigned long long*>(offsets + 1));
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  run_cub(scratch, [&](void* temp, std::size_t& bytes) {  // in place: CUB's scans allow d_in == d_out
    return cub::DeviceScan::InclusiveSum(temp, bytes, offsets + 1, offsets + 1, groups, nullptr);
  });
  return download_array(offsets + groups, 1)[0];
}

template <typename V>
slab_arrays<V> fill_slabs(const device_csr_view<V>& a, const slab_layout& layout, device_storage& storage) {
  const auto n = static_cast<std::size_t>(layout.entries);
  slab_arrays<V> out;
  out.col_idx = static_cast<index_type*>(storage.allocate_bytes(n * sizeof(index_type)));
  out.values = static_cast<V*>(storage.allocate_bytes(n * sizeof(V)));
  if (n == 0) return out;
  fill_slabs_kernel<V><<<grid_for(layout.entries), block, 0, nullptr>>>(a.row_ptr, a.col_idx, a.values, layout,
                                                                         out.col_idx, out.values);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  return out;
}

template void validate(const device_csr_view<float>&, const char*);
template void validate(const device_csr_view<double>&, const char*);
template slab_arrays<float> fill_slabs(const device_csr_view<float>&, const slab_layout&, device_storage&);
template slab_arrays<double> fill_slabs(const device_csr_view<double>&, const slab_layout&, device_storage&);

}  // namespace distspmv::ell_family
