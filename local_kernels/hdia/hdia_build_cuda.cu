// Builds HDIA from a CSR block already in GPU memory (DESIGN.md §11): the same hack_offsets,
// diag_offsets and values as build() on download_csr(a), bitwise, the same statistics and the
// same refusals. No host copy of the matrix: the host sees per-hack numbers only (where each
// hack's nonzeros start, its diagonal count: 16 bytes per hack).
//
//   1. hack_starts_kernel: row_ptr at each hack's first row, downloaded.
//   2. count_diagonals_kernel, one thread block per hack: the hack's distinct col - row offsets
//      in a hash set (shared memory, or a slice of a global buffer when the set is too large),
//      counted up to max_diagonals_per_hack + 1 only (beyond, the hack is refused anyway); it
//      also checks the row pointer and the columns as validate_csr does. Counts downloaded.
//   3. Host: the refusal checks hack by hack in build()'s order (detail::check_hack, shared with
//      build()), the prefix sum of the counts (hack_offsets) and the statistics.
//   4. fill_kernel, one thread block per hack: rebuilds the set, sorts it (rank of each key,
//      the keys are distinct) into diag_offsets, then scatters each nonzero's value to its slot,
//      found by binary search in the hack's sorted list. The values start zeroed (memset).
// Every slot receives at most one nonzero (columns are unique within a row), so the result does
// not depend on the order threads run in.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cub/thread/thread_search.cuh>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cuda_check.hpp"
#include "local_kernels/float_values.hpp"
#include "local_kernels/hdia/hdia.hpp"

namespace distspmv::hdia {

namespace {

constexpr const char* source = "hdia::build_cuda";

// Tuning constants. Not measured on the GPU yet (written without GPU access):
//   hack_threads 128: a hack of 32 rows of a 7-point stencil has 224 nonzeros, of a 27-point
//   one 864, so 2 to 7 steps per hack;
//   max_hack_blocks: the kernels loop over hacks beyond this grid (2^16 blocks of 128 threads
//   are about 30 times what an H100 holds at once);
//   a set of up to shared_set_bytes lives in shared memory (the default limit of 64 diagonals
//   needs 2 KiB); a larger one (max_diagonals_per_hack in the thousands) in a global buffer of
//   at most global_set_budget bytes, one slice per block, with fewer blocks (at least one: a
//   set holds at most min(the hack's nonzeros, limit + 128) keys, 8 bytes each).
constexpr int hack_threads = 128;
constexpr unsigned max_hack_blocks = 1u << 16;
constexpr std::size_t shared_set_bytes = 32 * 1024;
constexpr std::size_t global_set_budget = std::size_t{256} << 20;
constexpr int block = 256;  // the element-wise kernels

/// The empty slot of a set. No diagonal takes it: col - row >= -(rows - 1) > INT_MIN, rows < 2^31.
constexpr int empty_key = INT_MIN;
/// "Nothing found" of the first-invalid-row/entry reductions (atomicMin).
constexpr unsigned long long none = ULLONG_MAX;

/// Slots of a set for up to n keys: a power of two, at least 2n (load <= 1/2), at least 32.
__host__ __device__ offset_type set_slots(offset_type n) {
  offset_type s = 32;
  while (s < 2 * n) s *= 2;
  return s;
}

/// murmur3's finaliser: stencil offsets (multiples of the grid sizes) spread over the slots.
__device__ __forceinline__ unsigned long long hash_key(int key) {
  unsigned h = static_cast<unsigned>(key);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/// Inserts `key` into the open-addressing set table[0..mask] (shared or global memory), adding 1
/// to *size when it is new. The caller keeps the set below half full, so a free slot exists.
__device__ void set_insert(int* table, unsigned long long mask, int key, unsigned long long* size) {
  unsigned long long slot = hash_key(key) & mask;
  for (;;) {
    int seen = *static_cast<volatile int*>(table + slot);
    if (seen == empty_key) {
      seen = atomicCAS(table + slot, empty_key, key);
      if (seen == empty_key) {
        atomicAdd(size, 1ull);
        return;
      }
    }
    if (seen == key) return;
    slot = (slot + 1) & mask;
  }
}

/// One lane per distinct key of the warp inserts it (a stencil warp's 32 nonzeros lie on a few
/// diagonals). Every lane of the warp calls this; `insert` false lanes only take part.
__device__ __forceinline__ void warp_insert(int* table, unsigned long long mask, bool insert, int key,
                                            unsigned long long* size, unsigned long long size_cap) {
  const unsigned peers = __match_any_sync(0xffffffffu, insert ? key : empty_key);
  const bool leader = static_cast<int>(threadIdx.x % 32) == __ffs(peers) - 1;
  if (insert && leader && *static_cast<volatile unsigned long long*>(size) < size_cap)
    set_insert(table, mask, key, size);
}

/// The row of nonzero k among rows [lo, hi): the last r with row_ptr[r] <= k, given row_ptr[lo] <= k.
__device__ __forceinline__ global_index_type row_of(const offset_type* __restrict__ row_ptr, global_index_type lo,
                                                    global_index_type hi, offset_type k) {
  return lo + cub::UpperBound(row_ptr + lo + 1, hi - lo - 1, k);
}

/// The nonzeros [k_lo, k_hi) of rows [lo, hi) (one hack), 32 consecutive ones per warp and step:
/// f(k, row, valid) on every lane of the block, the same number of times on all lanes of a warp
/// (warp_insert needs them all); lanes past the end get valid = false.
template <typename F>
__device__ __forceinline__ void for_hack_nonzeros(const offset_type* __restrict__ row_ptr, global_index_type lo,
                                                  global_index_type hi, offset_type k_lo, offset_type k_hi, F&& f) {
  const offset_type warp_first = k_lo + (threadIdx.x / 32) * 32;
  for (offset_type base = warp_first; base < k_hi; base += blockDim.x) {
    const offset_type k = base + threadIdx.x % 32;
    const bool valid = k < k_hi;
    f(k, valid ? row_of(row_ptr, lo, hi, k) : lo, valid);
  }
}

/// The set's memory of this block: a slice of the global buffer, or dynamic shared memory.
__device__ __forceinline__ int* block_workspace(int* global, offset_type ints_per_block) {
  extern __shared__ int shared_workspace[];
  return global != nullptr ? global + blockIdx.x * ints_per_block : shared_workspace;
}

/// Clears table[0..slots) and *size for the next hack (the caller synchronises after).
__device__ __forceinline__ void clear_set(int* table, offset_type slots, unsigned long long* size) {
  for (offset_type i = threadIdx.x; i < slots; i += blockDim.x) table[i] = empty_key;
  if (threadIdx.x == 0) *size = 0;
}

/// starts[h] = row_ptr[min(h * H, rows)] for h in [0, hacks]: where each hack's nonzeros begin.
__global__ void hack_starts_kernel(const offset_type* __restrict__ row_ptr, global_index_type rows, global_index_type H,
                                   global_index_type hacks, offset_type* starts) {
  const global_index_type h = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (h <= hacks) starts[h] = row_ptr[min(h * H, rows)];
}

/// counts[h] = distinct diagonals of hack h, exact below `cap`, at least `cap` otherwise. Also
/// the first row whose row_ptr decreases and the first nonzero whose column lies outside
/// [0, cols) or not after the previous one of its row (validate_csr's checks), by atomicMin.
/// A hack whose row_ptr bounds lie outside [0, nnz] or decrease reads no nonzeros (the host
/// reports the row pointer then).
__global__ void __launch_bounds__(hack_threads)
    count_diagonals_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                           global_index_type rows, global_index_type cols, offset_type nnz, global_index_type H,
                           global_index_type hacks, offset_type cap, int* global_sets, offset_type set_ints,
                           unsigned long long* counts, unsigned long long* first_bad_row,
                           unsigned long long* first_bad_nonzero) {
  __shared__ unsigned long long size;
  int* table = block_workspace(global_sets, set_ints);
  for (global_index_type h = blockIdx.x; h < hacks; h += gridDim.x) {
    const global_index_type lo = h * H, hi = min(rows, lo + H);
    for (global_index_type r = lo + threadIdx.x; r < hi; r += blockDim.x)
      if (row_ptr[r + 1] < row_ptr[r]) atomicMin(first_bad_row, static_cast<unsigned long long>(r));
    offset_type k_lo = row_ptr[lo], k_hi = row_ptr[hi];
    if (k_lo < 0 || k_hi > nnz || k_hi < k_lo) k_lo = k_hi = 0;
    // Counting stops at cap, but up to one insert per thread may be under way then.
    const offset_type slots = set_slots(min(k_hi - k_lo, cap - 1 + hack_threads));
    clear_set(table, slots, &size);
    __syncthreads();
    for_hack_nonzeros(row_ptr, lo, hi, k_lo, k_hi, [&](offset_type k, global_index_type r, bool valid) {
      int key = empty_key;
      if (valid) {
        const index_type c = col_idx[k];
        // k > k_lo too: col_idx[k - 1] stays in range however bad the row pointer (reported then).
        const bool bad = c < 0 || c >= cols || (k > k_lo && k > __ldg(row_ptr + r) && c <= col_idx[k - 1]);
        if (bad) atomicMin(first_bad_nonzero, static_cast<unsigned long long>(k));
        valid = !bad;
        key = static_cast<int>(c - r);  // |col - row| < 2^31 for an in-range column
      }
      warp_insert(table, static_cast<unsigned long long>(slots - 1), valid, key, &size,
                  static_cast<unsigned long long>(cap));
    });
    __syncthreads();
    if (threadIdx.x == 0) counts[h] = size;
    __syncthreads();  // before the next hack clears the set
  }
}

/// For hacks [0, hacks): writes each hack's diagonals, ascending, to diag_offsets from
/// hack_offsets[h], and (values != nullptr) scatters its nonzeros into the zeroed values, as W
/// (float in mixed precision). The set and a list of the hack's keys share the block's workspace.
template <typename V, typename W>
__global__ void __launch_bounds__(hack_threads)
    fill_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col_idx,
                const V* __restrict__ csr_values, global_index_type rows, global_index_type H, global_index_type hacks,
                const offset_type* __restrict__ hack_offsets, int* global_sets, offset_type set_ints,
                index_type* diag_offsets, W* values) {
  __shared__ unsigned long long size, listed;
  int* const workspace = block_workspace(global_sets, set_ints);
  for (global_index_type h = blockIdx.x; h < hacks; h += gridDim.x) {
    const global_index_type lo = h * H, hi = min(rows, lo + H);
    const offset_type k_lo = row_ptr[lo], k_hi = row_ptr[hi];
    const offset_type first = hack_offsets[h], n = hack_offsets[h + 1] - first;
    const offset_type slots = set_slots(n);
    int* const table = workspace;
    int* const list = workspace + slots;
    clear_set(table, slots, &size);
    if (threadIdx.x == 0) listed = 0;
    __syncthreads();
    for_hack_nonzeros(row_ptr, lo, hi, k_lo, k_hi, [&](offset_type k, global_index_type r, bool valid) {
      const int key = valid ? static_cast<int>(col_idx[k] - r) : empty_key;
      warp_insert(table, static_cast<unsigned long long>(slots - 1), valid, key, &size, ULLONG_MAX);
    });
    __syncthreads();
    for (offset_type i = threadIdx.x; i < slots; i += blockDim.x)
      if (table[i] != empty_key) list[atomicAdd(&listed, 1ull)] = table[i];
    __syncthreads();
    // Sorted by rank: n^2 / hack_threads comparisons per hack, n <= max_diagonals_per_hack.
    for (offset_type i = threadIdx.x; i < n; i += blockDim.x) {
      const int key = list[i];
      offset_type rank = 0;
      for (offset_type j = 0; j < n; ++j) rank += list[j] < key;
      diag_offsets[first + rank] = key;
    }
    __syncthreads();  // the block's writes to diag_offsets are visible to it from here
    if (values != nullptr) {
      const index_type* const diags = diag_offsets + first;
      for_hack_nonzeros(row_ptr, lo, hi, k_lo, k_hi, [&](offset_type k, global_index_type r, bool valid) {
        if (!valid) return;
        const int key = static_cast<int>(col_idx[k] - r);
        values[(first + cub::LowerBound(diags, n, key)) * H + (r - lo)] = static_cast<W>(csr_values[k]);
      });
    }
    __syncthreads();  // before the next hack clears the set
  }
}

unsigned grid_for(offset_type n) { return static_cast<unsigned>(std::max<offset_type>(1, (n + block - 1) / block)); }

/// Where a kernel's per-block sets of `ints` ints live: dynamic shared memory when small enough,
/// else slices of a global buffer (fewer blocks then, to bound the buffer).
struct set_memory {
  int* global = nullptr;  ///< null: shared memory
  offset_type ints = 0;   ///< per block
  std::size_t shared_bytes = 0;
  unsigned grid = 1;
};

set_memory make_set_memory(offset_type ints, global_index_type hacks, device_storage& scratch) {
  set_memory m;
  m.ints = ints;
  const std::size_t bytes = static_cast<std::size_t>(ints) * sizeof(int);
  if (bytes <= shared_set_bytes) {
    m.shared_bytes = bytes;
    m.grid = static_cast<unsigned>(std::min<global_index_type>(hacks, max_hack_blocks));
    return m;
  }
  int device = 0, sms = 0;
  DSPMV_CUDA_CHECK(cudaGetDevice(&device));
  DSPMV_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const global_index_type blocks = std::min<global_index_type>(
      {hacks, 2 * static_cast<global_index_type>(sms), static_cast<global_index_type>(global_set_budget / bytes)});
  m.grid = static_cast<unsigned>(std::max<global_index_type>(1, blocks));
  m.global = static_cast<int*>(scratch.allocate_bytes(m.grid * bytes));
  return m;
}

/// The builder's first pass: where each hack's nonzeros start, its distinct diagonals (exact below
/// max_diagonals_per_hack + 1, at least that otherwise), and validate_csr's findings (none: valid).
struct hack_counts {
  std::vector<offset_type> starts;          ///< hacks + 1
  std::vector<unsigned long long> counts;   ///< hacks
  unsigned long long first_bad_row = none, first_bad_nonzero = none;
};

template <typename V>
hack_counts count_hack_diagonals(const device_csr_view<V>& d, const hdia_params& params, device_storage& scratch) {
  const global_index_type H = params.hack_size;
  const global_index_type hacks = (d.rows + H - 1) / H;
  hack_counts out;
  auto* d_starts = static_cast<offset_type*>(scratch.allocate_bytes((hacks + 1) * sizeof(offset_type)));
  hack_starts_kernel<<<grid_for(hacks + 1), block, 0, nullptr>>>(d.row_ptr, d.rows, H, hacks, d_starts);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  out.starts = download_array(d_starts, static_cast<std::size_t>(hacks) + 1);
  if (hacks == 0) return out;
  offset_type most_nonzeros = 0;  // of a hack: its set never holds more keys
  for (global_index_type h = 0; h < hacks; ++h)
    most_nonzeros = std::max(most_nonzeros, out.starts[h + 1] - out.starts[h]);
  const offset_type cap = static_cast<offset_type>(params.max_diagonals_per_hack) + 1;
  const set_memory sets = make_set_memory(set_slots(std::min(most_nonzeros, cap - 1 + hack_threads)), hacks, scratch);
  auto* d_counts = static_cast<unsigned long long*>(scratch.allocate_bytes(hacks * sizeof(unsigned long long)));
  auto* d_bad = static_cast<unsigned long long*>(scratch.allocate_bytes(2 * sizeof(unsigned long long)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(d_bad, 0xff, 2 * sizeof(unsigned long long), nullptr));  // none
  count_diagonals_kernel<<<sets.grid, hack_threads, sets.shared_bytes, nullptr>>>(
      d.row_ptr, d.col_idx, d.rows, d.cols, d.nnz, H, hacks, cap, sets.global, sets.ints, d_counts, d_bad, d_bad + 1);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  const auto bad = download_array(d_bad, 2);
  out.first_bad_row = bad[0];
  out.first_bad_nonzero = bad[1];
  out.counts = download_array(d_counts, static_cast<std::size_t>(hacks));
  return out;
}

/// Distinct diagonals of hacks [0, hacks) (the padding refusal's message): their lists written by
/// fill_kernel, then sorted and made unique by CUB.
template <typename V>
std::size_t distinct_diagonals(const device_csr_view<V>& a, global_index_type H, global_index_type hacks,
                               const std::vector<offset_type>& hack_offsets) {
  device_storage scratch;
  const std::vector<offset_type> offsets(hack_offsets.begin(), hack_offsets.begin() + hacks + 1);
  const offset_type n = offsets.back();
  if (n == 0) return 0;
  offset_type most = 0;
  for (global_index_type h = 0; h < hacks; ++h) most = std::max(most, offsets[h + 1] - offsets[h]);
  const set_memory sets = make_set_memory(set_slots(most) + most, hacks, scratch);
  const offset_type* d_offsets = scratch.upload(offsets);
  auto* lists = static_cast<index_type*>(scratch.allocate_bytes(static_cast<std::size_t>(n) * sizeof(index_type)));
  auto* sorted = static_cast<index_type*>(scratch.allocate_bytes(static_cast<std::size_t>(n) * sizeof(index_type)));
  auto* d_count = static_cast<offset_type*>(scratch.allocate_bytes(sizeof(offset_type)));
  fill_kernel<V, V><<<sets.grid, hack_threads, sets.shared_bytes, nullptr>>>(
      a.row_ptr, a.col_idx, a.values, a.rows, H, hacks, d_offsets, sets.global, sets.ints, lists, nullptr);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  std::size_t sort_bytes = 0, unique_bytes = 0;
  DSPMV_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, lists, sorted, n));
  DSPMV_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_bytes, sorted, lists, d_count, n));
  std::size_t temp_bytes = std::max<std::size_t>({sort_bytes, unique_bytes, 1});
  void* temp = scratch.allocate_bytes(temp_bytes);
  DSPMV_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, lists, sorted, n));
  temp_bytes = std::max<std::size_t>({sort_bytes, unique_bytes, 1});
  DSPMV_CUDA_CHECK(cub::DeviceSelect::Unique(temp, temp_bytes, sorted, lists, d_count, n));
  return static_cast<std::size_t>(download_array(d_count, 1)[0]);
}

/// Throws bad_input for what validate_csr refuses, in its order: the row pointer's start, its
/// first decrease, its end, then the first nonzero with a bad column (its row found from the
/// hack starts and that hack's row pointer).
template <typename V>
void check_structure(const device_csr_view<V>& a, global_index_type H, const std::vector<offset_type>& starts,
                     unsigned long long first_bad_row, unsigned long long first_bad_nonzero) {
  using std::to_string;
  if (starts.front() != 0) DSPMV_BAD_INPUT(source, "indptr", "does not start at 0");
  if (first_bad_row != none) DSPMV_BAD_INPUT(source, "indptr", "decreases at row " + to_string(first_bad_row));
  if (starts.back() != a.nnz)
    DSPMV_BAD_INPUT(source, "indptr", "ends at " + to_string(starts.back()) + " but the block has " + to_string(a.nnz) +
                                          " nonzeros");
  if (first_bad_nonzero == none) return;
  const auto k = static_cast<offset_type>(first_bad_nonzero);
  const global_index_type h = std::upper_bound(starts.begin() + 1, starts.end(), k) - (starts.begin() + 1);
  const global_index_type lo = h * H, hi = std::min(a.rows, lo + H);
  const auto hack_rows = download_array(a.row_ptr + lo, static_cast<std::size_t>(hi - lo) + 1);
  const global_index_type r =
      lo + (std::upper_bound(hack_rows.begin() + 1, hack_rows.end(), k) - (hack_rows.begin() + 1));
  const index_type c = download_array(a.col_idx + k, 1)[0];
  throw_bad_entry(source, c, r, a.cols);
}

}  // namespace

template <typename V>
device_built<hdia_view<V>> build_cuda(device_csr<V>&& a, const hdia_params& params) {
  const device_csr_view<V> d = a.view();
  if (d.rows < 0 || d.cols < 0)
    DSPMV_BAD_INPUT(source, "shape", "negative dimension " + std::to_string(d.rows) + " x " + std::to_string(d.cols));
  detail::check_params(d.rows, params, source);
  const bool f32 = stores_float_values<V>(params);
  if (f32) check_fits_float(d, source);
  const global_index_type H = params.hack_size;
  const global_index_type hacks = (d.rows + H - 1) / H;
  device_storage scratch;  // freed on return: hack starts, counts, the sets

  const hack_counts first = count_hack_diagonals(d, params, scratch);
  check_structure(d, H, first.starts, first.first_bad_row, first.first_bad_nonzero);
  const std::vector<unsigned long long>& counts = first.counts;
  std::vector<offset_type> hack_offsets(static_cast<std::size_t>(hacks) + 1, 0);
  if (hacks > 0) {
    const offset_type cap = static_cast<offset_type>(params.max_diagonals_per_hack) + 1;
    // build()'s refusals, hack by hack; hack_offsets is the running sum of the counts.
    offset_type slots_in_rows = 0;
    for (global_index_type h = 0; h < hacks; ++h) {
      const offset_type n = static_cast<offset_type>(counts[h]);
      hack_offsets[h + 1] = hack_offsets[h] + std::min(n, cap - 1);
      detail::check_hack(
          h, n < cap ? n : -1, d.rows, d.nnz, params, slots_in_rows,
          [&] { return distinct_diagonals(d, H, h + 1, hack_offsets); }, source);
    }
  }

  device_built<hdia_view<V>> built;
  built.view.rows = d.rows;
  built.view.cols = d.cols;
  built.view.hack_size = params.hack_size;
  built.view.hack_offsets = built.storage.upload(hack_offsets);
  const offset_type diagonals = hack_offsets.back();
  auto* diag_offsets = static_cast<index_type*>(built.storage.allocate_bytes(diagonals * sizeof(index_type)));
  built.view.diag_offsets = diag_offsets;
  // The values in V, or rounded to float as they are scattered (mixed precision).
  auto fill = [&](auto* values) {
    using W = std::remove_pointer_t<decltype(values)>;
    if (diagonals == 0) return;
    DSPMV_CUDA_CHECK(cudaMemsetAsync(values, 0, diagonals * H * sizeof(W), nullptr));  // +0 in float and double
    offset_type most = 0;
    for (global_index_type h = 0; h < hacks; ++h) most = std::max(most, hack_offsets[h + 1] - hack_offsets[h]);
    const set_memory sets = make_set_memory(set_slots(most) + most, hacks, scratch);
    fill_kernel<V, W><<<sets.grid, hack_threads, sets.shared_bytes, nullptr>>>(
        d.row_ptr, d.col_idx, d.values, d.rows, H, hacks, built.view.hack_offsets, sets.global, sets.ints, diag_offsets,
        values);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  };
  if (f32) {
    auto* values = static_cast<float*>(built.storage.allocate_bytes(diagonals * H * sizeof(float)));
    built.view.values_f32 = values;
    fill(values);
  } else {
    auto* values = static_cast<V*>(built.storage.allocate_bytes(diagonals * H * sizeof(V)));
    built.view.values = values;
    fill(values);
  }
  built.stats = detail::hdia_stats(hack_offsets, d.rows, d.nnz, H, f32 ? sizeof(float) : sizeof(V), f32);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<hdia_view<float>> build_cuda(device_csr<float>&&, const hdia_params&);

template <typename V>
offset_type hack_slots_cuda(const device_csr_view<V>& a, const hdia_params& params) {
  detail::check_params(0, params, "hdia::hack_slots_cuda");
  if (a.rows > std::numeric_limits<index_type>::max()) return -1;  // build_cuda refuses it
  device_storage scratch;
  const hack_counts first = count_hack_diagonals(a, params, scratch);
  const global_index_type H = params.hack_size;
  offset_type slots = 0;
  for (std::size_t h = 0; h < first.counts.size(); ++h) {
    if (first.counts[h] > static_cast<unsigned long long>(params.max_diagonals_per_hack)) return -1;
    const global_index_type lo = static_cast<global_index_type>(h) * H;
    slots += static_cast<offset_type>(first.counts[h]) * (std::min(a.rows, lo + H) - lo);
  }
  return slots;
}

template offset_type hack_slots_cuda(const device_csr_view<float>&, const hdia_params&);
template offset_type hack_slots_cuda(const device_csr_view<double>&, const hdia_params&);
template device_built<hdia_view<double>> build_cuda(device_csr<double>&&, const hdia_params&);

}  // namespace distspmv::hdia
