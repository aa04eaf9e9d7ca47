// Builds column-sorted row panels from a CSR block already in GPU memory (DESIGN.md §11): the same
// arrays as build() on download_csr(a), bitwise, the same statistics and the same refusals. The
// host sees the row pointer (8 bytes per row) and a number per panel; the entries stay on the GPU.
//
//   1. The row pointer, downloaded: checked as validate_csr does; plan_panels (panel_build.cpp,
//      shared with build()) gives the split rows, the panel cuts and the slot offsets. Below,
//      "rows" are panel rows: where a row is split, the plan's part pointer is uploaded and used
//      in place of the row pointer.
//   2. check_columns_kernel: the first entry whose column is out of range or not above the
//      previous one of its row (atomicMin), reported as validate_csr reports it.
//   3. slots_kernel (a block per panel): each entry's slot, round-robin over its row's pieces.
//   4. One stable CUB radix sort of the entries by (panel, column), in chunks of panels of fewer
//      than 2^30 entries: each panel's entries in column order, ties in CSR order, as
//      build()'s std::stable_sort.
//   5. rounds_kernel (a warp per panel, its counts in shared memory): build()'s greedy loop, each
//      entry's place in its panel's stored range, and the panel's rounds.
//   6. pad_kernel and place_kernel (a block per panel): padding (value 0, the panel's smallest
//      column, padding_slot) everywhere, then each entry at its place. The kernel's dispatch
//      order comes from the panels' rounds on the host (dispatch_order, shared with build()).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "local_kernels/panel/panel.hpp"

namespace distspmv::panel {
namespace {

constexpr const char* source = "panel::build_cuda";
constexpr int block = 256;
constexpr unsigned max_blocks = 1u << 16;
constexpr unsigned long long none = ULLONG_MAX;
/// Entries per radix sort (CUB counts items in int).
constexpr offset_type sort_chunk = offset_type{1} << 30;

unsigned grid_for(offset_type threads) {
  return static_cast<unsigned>(std::max<offset_type>(1, std::min<offset_type>(max_blocks, (threads + block - 1) / block)));
}

int bit_width(unsigned long long x) {
  int bits = 0;
  for (; x != 0; x >>= 1) ++bits;
  return bits;
}

/// The row of entry k: the last r with row_ptr[r] <= k (row_ptr[first..last] brackets k).
__device__ global_index_type row_of(const offset_type* row_ptr, global_index_type first, global_index_type last,
                                    offset_type k) {
  while (last - first > 1) {
    const global_index_type mid = first + (last - first) / 2;
    if (row_ptr[mid] <= k) first = mid;
    else last = mid;
  }
  return first;
}

__global__ void __launch_bounds__(block)
    check_columns_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ col,
                         global_index_type rows, global_index_type cols, offset_type nnz, unsigned long long* first_bad) {
  for (offset_type k = blockIdx.x * offset_type{block} + threadIdx.x; k < nnz; k += offset_type{gridDim.x} * block) {
    const index_type c = col[k];
    bool bad = c < 0 || c >= cols;
    if (!bad && k > 0 && col[k - 1] >= c) bad = row_ptr[row_of(row_ptr, 0, rows, k)] < k;  // not the row's first
    if (bad) atomicMin(first_bad, static_cast<unsigned long long>(k));
  }
}

/// Each entry's slot: the row's first slot + its place in the row mod the row's slots.
__global__ void __launch_bounds__(block)
    slots_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ panel_row,
                 const std::uint16_t* __restrict__ slot_begin, std::uint16_t* __restrict__ slot_of) {
  const index_type p = blockIdx.x, first = panel_row[p], last = panel_row[p + 1];
  const offset_type b = row_ptr[first], e = row_ptr[last];
  for (offset_type k = b + threadIdx.x; k < e; k += block) {
    const global_index_type r = row_of(row_ptr, first, last, k);
    const std::uint16_t* sb = slot_begin + r + p;
    slot_of[k] = static_cast<std::uint16_t>(sb[0] + (k - row_ptr[r]) % (sb[1] - sb[0]));
  }
}

/// Sort keys of a chunk of panels [p0, p1): (panel - p0) << 32 | column; values: entry - base.
__global__ void __launch_bounds__(block)
    sort_keys_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ panel_row,
                     const index_type* __restrict__ col, index_type p0, offset_type base,
                     unsigned long long* __restrict__ keys, unsigned* __restrict__ values) {
  const index_type p = p0 + blockIdx.x;
  const offset_type b = row_ptr[panel_row[p]], e = row_ptr[panel_row[p + 1]];
  for (offset_type k = b + threadIdx.x; k < e; k += block) {
    keys[k - base] = (static_cast<unsigned long long>(p - p0) << 32) | static_cast<unsigned>(col[k]);
    values[k - base] = static_cast<unsigned>(k - base);
  }
}

/// Entries a warp of rounds_kernel takes at a time (its slots and places staged in shared memory).
constexpr int rounds_chunk = 512;

/// The most rounds a panel of `n` entries and at most `q` entries a slot can take. Each entry goes
/// to the first round with room from max(open, its slot's last round + 1); the full rounds it
/// skips are at most F = ceil(n / round_entries), and open <= F. So a slot's entry j (from 0) lies
/// in a round below 2F + j (F + 1) + 1 (by induction on j), and, since no round is left empty,
/// below n.
offset_type rounds_bound(offset_type n, offset_type q) {
  const offset_type f = (n + round_entries - 1) / round_entries;
  return std::min(n, 2 * f + (q - 1) * (f + 1) + 1);
}

/// build()'s greedy loop (lay_out_panel), a warp per panel: the lanes gather the next
/// rounds_chunk entries' slots in the panel's column order (`sorted`, chunk-relative), lane 0
/// places them one by one, and the lanes write the places (each entry's place in the panel's
/// stored range, in that order) and at the end the panel's rounds. Each slot's last round and each
/// round's count are in shared memory where `shared_rounds` > 0 (the bound on any panel's rounds;
/// 0: in the global scratch `last` (an int per slot, at slot_base) and `fill` (a count per entry)).
/// One loop for both through generic pointers; in shared memory a step waits on no L2 round trip
/// (one thread per panel over L2 took most of rmat:22:16's build).
__global__ void __launch_bounds__(32)
    rounds_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ panel_row,
                  const std::uint16_t* __restrict__ slot_of, const unsigned* __restrict__ sorted,
                  const offset_type* __restrict__ sorted_base, const offset_type* __restrict__ slot_base,
                  int shared_rounds, int* __restrict__ last_global, std::uint16_t* __restrict__ fill_global,
                  offset_type* __restrict__ place, offset_type* __restrict__ rounds) {
  extern __shared__ offset_type shared[];
  offset_type* place_buf = shared;                                              // [rounds_chunk]
  auto* slot_buf = reinterpret_cast<std::uint16_t*>(place_buf + rounds_chunk);  // [rounds_chunk]
  const index_type p = blockIdx.x;
  const int lane = threadIdx.x;
  const offset_type b = row_ptr[panel_row[p]], n = row_ptr[panel_row[p + 1]] - b, base = sorted_base[p];
  const offset_type slots = slot_base[p + 1] - slot_base[p];
  int* last = last_global + slot_base[p];
  std::uint16_t* fill = fill_global + b;
  offset_type fills = n;
  if (shared_rounds > 0) {
    last = reinterpret_cast<int*>(slot_buf + rounds_chunk);
    fill = reinterpret_cast<std::uint16_t*>(last + slots);
    fills = min(n, static_cast<offset_type>(shared_rounds));
  }
  for (offset_type i = lane; i < slots; i += 32) last[i] = -1;
  for (offset_type i = lane; i < fills; i += 32) fill[i] = 0;
  offset_type open = 0, used = 0;
  for (offset_type k0 = 0; k0 < n; k0 += rounds_chunk) {
    const int m = static_cast<int>(min(static_cast<offset_type>(rounds_chunk), n - k0));
    for (int i = lane; i < m; i += 32) slot_buf[i] = slot_of[base + sorted[b + k0 + i]];
    __syncwarp();
    if (lane == 0) {
      for (int i = 0; i < m; ++i) {
        const std::uint16_t s = slot_buf[i];
        offset_type r = max(open, static_cast<offset_type>(last[s]) + 1);
        while (fill[r] == round_entries) ++r;
        place_buf[i] = r * round_entries + fill[r]++;
        last[s] = static_cast<int>(r);
        used = max(used, r + 1);
        while (open < used && fill[open] == round_entries) ++open;
      }
    }
    __syncwarp();
    for (int i = lane; i < m; i += 32) place[b + k0 + i] = place_buf[i];
    __syncwarp();
  }
  if (lane == 0) rounds[p] = used;
}

template <typename V>
__global__ void __launch_bounds__(block)
    pad_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ panel_row,
               const index_type* __restrict__ col, const unsigned* __restrict__ sorted,
               const offset_type* __restrict__ sorted_base, const offset_type* __restrict__ panel_entry,
               V* __restrict__ out_val, index_type* __restrict__ out_col, std::uint16_t* __restrict__ out_slot) {
  const index_type p = blockIdx.x;
  const offset_type b = row_ptr[panel_row[p]], e = row_ptr[panel_row[p + 1]];
  const index_type smallest = e > b ? col[sorted_base[p] + sorted[b]] : 0;  // the first in column order
  for (offset_type k = panel_entry[p] + threadIdx.x; k < panel_entry[p + 1]; k += block) {
    out_val[k] = V(0);
    out_col[k] = smallest;
    out_slot[k] = padding_slot;
  }
}

template <typename V>
__global__ void __launch_bounds__(block)
    place_kernel(const offset_type* __restrict__ row_ptr, const index_type* __restrict__ panel_row,
                 const index_type* __restrict__ col, const V* __restrict__ val, const std::uint16_t* __restrict__ slot_of,
                 const unsigned* __restrict__ sorted, const offset_type* __restrict__ sorted_base,
                 const offset_type* __restrict__ place, const offset_type* __restrict__ panel_entry,
                 V* __restrict__ out_val, index_type* __restrict__ out_col, std::uint16_t* __restrict__ out_slot) {
  const index_type p = blockIdx.x;
  const offset_type b = row_ptr[panel_row[p]], e = row_ptr[panel_row[p + 1]];
  for (offset_type k = b + threadIdx.x; k < e; k += block) {
    const offset_type from = sorted_base[p] + sorted[k], to = panel_entry[p] + place[k];
    out_val[to] = val[from];
    out_col[to] = col[from];
    out_slot[to] = slot_of[from];
  }
}

template <typename T>
T* scratch_array(device_storage& s, offset_type n) {
  return static_cast<T*>(s.allocate_bytes(static_cast<std::size_t>(std::max<offset_type>(1, n)) * sizeof(T)));
}

}  // namespace

template <typename V>
device_built<panel_view<V>> build_cuda(device_csr<V>&& a, const panel_params& params) {
  using std::to_string;
  const device_csr_view<V> d = a.view();
  if (d.rows < 0 || d.cols < 0)
    DSPMV_BAD_INPUT(source, "shape", "negative dimension " + to_string(d.rows) + " x " + to_string(d.cols));
  if (d.rows > INT_MAX) DSPMV_BAD_INPUT(source, "rows", to_string(d.rows) + " rows exceed the 32-bit local row range");

  // 1. The row pointer and the plan.
  const std::vector<offset_type> row_ptr = download_array(d.row_ptr, static_cast<std::size_t>(d.rows) + 1);
  check_row_pointer(row_ptr, d.nnz, source);
  const panel_plan plan = plan_panels(row_ptr, params);
  const index_type panels = static_cast<index_type>(plan.panel_row.size() - 1);
  const offset_type nnz = d.nnz;

  device_storage scratch;
  const std::vector<offset_type>& rp = plan.panel_row_ptr(row_ptr);  // the panel rows' entries
  const offset_type* d_rp = plan.part_ptr.empty() ? d.row_ptr : scratch.upload(plan.part_ptr);
  // 2. The columns.
  if (nnz > 0) {
    auto* first_bad = scratch_array<unsigned long long>(scratch, 1);
    DSPMV_CUDA_CHECK(cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), nullptr));
    check_columns_kernel<<<grid_for(nnz), block, 0, nullptr>>>(d.row_ptr, d.col_idx, d.rows, d.cols, nnz, first_bad);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    const unsigned long long bad = download_array(first_bad, 1)[0];
    if (bad != none) {
      const auto r = std::upper_bound(row_ptr.begin(), row_ptr.end(), static_cast<offset_type>(bad)) - row_ptr.begin() - 1;
      throw_bad_entry(source, download_array(d.col_idx + bad, 1)[0], r, d.cols);
    }
  }

  device_built<panel_view<V>> built;
  built.view.rows = d.rows;
  built.view.cols = d.cols;
  built.view.panels = panels;
  built.view.max_slots = plan.max_slots;
  const index_type* panel_row = built.storage.upload(plan.panel_row);
  const std::uint16_t* slot_begin = built.storage.upload(plan.slot_begin);
  built.view.panel_row = panel_row;
  built.view.slot_begin = slot_begin;
  built.view.splits = static_cast<index_type>(plan.split_row.size());
  if (built.view.splits > 0) {
    built.view.row_out = built.storage.upload(plan.row_out);
    built.view.split_row = built.storage.upload(plan.split_row);
    built.view.split_part = built.storage.upload(plan.split_part);
    built.view.part_sums = static_cast<V*>(built.storage.allocate_bytes(static_cast<std::size_t>(plan.split_part.back()) * sizeof(V)));
  }

  // 3. Slots. 4. Column order within each panel, chunk by chunk.
  auto* slot_of = scratch_array<std::uint16_t>(scratch, nnz);
  auto* sorted = scratch_array<unsigned>(scratch, nnz);  // chunk-relative entries, in each panel's column order
  std::vector<offset_type> base(static_cast<std::size_t>(panels), 0);  // each panel's chunk start
  if (nnz > 0) {
    slots_kernel<<<static_cast<unsigned>(panels), block, 0, nullptr>>>(d_rp, panel_row, slot_begin, slot_of);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    offset_type longest_chunk = 0;
    for (index_type p0 = 0; p0 < panels;) {
      index_type p1 = p0 + 1;
      while (p1 < panels && rp[plan.panel_row[p1 + 1]] - rp[plan.panel_row[p0]] < sort_chunk) ++p1;
      longest_chunk = std::max(longest_chunk, rp[plan.panel_row[p1]] - rp[plan.panel_row[p0]]);
      p0 = p1;
    }
    device_storage sort_scratch;
    auto* keys_in = scratch_array<unsigned long long>(sort_scratch, longest_chunk);
    auto* keys_out = scratch_array<unsigned long long>(sort_scratch, longest_chunk);
    auto* values_in = scratch_array<unsigned>(sort_scratch, longest_chunk);
    std::size_t temp_bytes = 0;
    DSPMV_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, values_in, sorted,
                                                     static_cast<int>(longest_chunk), 0, 64, nullptr));
    void* temp = sort_scratch.allocate_bytes(std::max<std::size_t>(temp_bytes, 1));
    for (index_type p0 = 0; p0 < panels;) {
      index_type p1 = p0 + 1;
      while (p1 < panels && rp[plan.panel_row[p1 + 1]] - rp[plan.panel_row[p0]] < sort_chunk) ++p1;
      const offset_type b = rp[plan.panel_row[p0]], n = rp[plan.panel_row[p1]] - b;
      for (index_type p = p0; p < p1; ++p) base[static_cast<std::size_t>(p)] = b;
      if (n > 0) {
        sort_keys_kernel<<<static_cast<unsigned>(p1 - p0), block, 0, nullptr>>>(d_rp, panel_row, d.col_idx, p0, b,
                                                                                  keys_in, values_in);
        DSPMV_CUDA_CHECK_LAUNCH(nullptr);
        const int end_bit = 32 + bit_width(static_cast<unsigned long long>(p1 - p0 - 1));
        std::size_t bytes = temp_bytes;
        DSPMV_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, sorted + b,
                                                         static_cast<int>(n), 0, end_bit, nullptr));
      }
      p0 = p1;
    }
  }

  // 5. Rounds and places: a warp per panel, its counts in shared memory where the bound on a
  // panel's rounds leaves room (always with the default sizes: at most 4,256 rounds).
  std::vector<offset_type> slot_base(static_cast<std::size_t>(panels) + 1, 0);
  offset_type most_entries = 0;
  for (index_type p = 0; p < panels; ++p) {
    slot_base[static_cast<std::size_t>(p) + 1] =
        slot_base[static_cast<std::size_t>(p)] + plan.slot_begin[static_cast<std::size_t>(plan.panel_row[p + 1] + p)];
    most_entries = std::max(most_entries, rp[plan.panel_row[p + 1]] - rp[plan.panel_row[p]]);
  }
  offset_type longest_row = 0;  // (a panel row's entries; a slot holds at most piece_length of them)
  for (std::size_t r = 0; r + 1 < rp.size(); ++r) longest_row = std::max(longest_row, rp[r + 1] - rp[r]);
  const offset_type bound = rounds_bound(most_entries, piece_length(longest_row, plan.params));
  const std::size_t staging = rounds_chunk * (sizeof(offset_type) + sizeof(std::uint16_t));
  const std::size_t in_shared = staging + static_cast<std::size_t>(plan.max_slots) * sizeof(int) +
                                static_cast<std::size_t>(bound) * sizeof(std::uint16_t);
  const bool shared_counts = in_shared <= 48 * 1024;
  std::vector<offset_type> rounds(static_cast<std::size_t>(panels), 0);
  auto* place = scratch_array<offset_type>(scratch, nnz);
  const offset_type* sorted_base = scratch.upload(base);
  if (nnz > 0) {
    device_storage round_scratch;
    auto* last = shared_counts ? nullptr : scratch_array<int>(round_scratch, slot_base.back());
    auto* fill = shared_counts ? nullptr : scratch_array<std::uint16_t>(round_scratch, nnz);
    auto* d_rounds = scratch_array<offset_type>(round_scratch, panels);
    rounds_kernel<<<static_cast<unsigned>(panels), 32, shared_counts ? in_shared : staging, nullptr>>>(
        d_rp, panel_row, slot_of, sorted, sorted_base, round_scratch.upload(slot_base),
        shared_counts ? static_cast<int>(bound) : 0, last, fill, place, d_rounds);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    rounds = download_array(d_rounds, static_cast<std::size_t>(panels));
  }
  std::vector<offset_type> panel_entry(static_cast<std::size_t>(panels) + 1, 0);
  for (index_type p = 0; p < panels; ++p)
    panel_entry[static_cast<std::size_t>(p) + 1] = panel_entry[static_cast<std::size_t>(p)] + rounds[static_cast<std::size_t>(p)] * round_entries;
  const offset_type stored = panel_entry.back();
  const offset_type* d_panel_entry = built.storage.upload(panel_entry);
  built.view.panel_entry = d_panel_entry;
  built.view.dispatch = built.storage.upload(dispatch_order(panel_entry, plan.params.wave_panels));

  // 6. Padding, then the entries.
  auto* out_val = static_cast<V*>(built.storage.allocate_bytes(static_cast<std::size_t>(stored) * sizeof(V)));
  auto* out_col = static_cast<index_type*>(built.storage.allocate_bytes(static_cast<std::size_t>(stored) * sizeof(index_type)));
  auto* out_slot =
      static_cast<std::uint16_t*>(built.storage.allocate_bytes(static_cast<std::size_t>(stored) * sizeof(std::uint16_t)));
  built.view.values = out_val;
  built.view.col_idx = out_col;
  built.view.slot = out_slot;
  if (stored > 0) {
    pad_kernel<V><<<static_cast<unsigned>(panels), block, 0, nullptr>>>(d_rp, panel_row, d.col_idx, sorted, sorted_base,
                                                                        d_panel_entry, out_val, out_col, out_slot);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    place_kernel<V><<<static_cast<unsigned>(panels), block, 0, nullptr>>>(d_rp, panel_row, d.col_idx, d.values, slot_of,
                                                                          sorted, sorted_base, place, d_panel_entry,
                                                                          out_val, out_col, out_slot);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  }

  built.stats.stored_bytes = stored_bytes(plan, panel_entry.size(), stored, sizeof(V));
  built.stats.padding_ratio = nnz > 0 ? static_cast<double>(stored) / static_cast<double>(nnz) : 1.0;
  built.stats.params = params_text(plan);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<panel_view<float>> build_cuda(device_csr<float>&&, const panel_params&);
template device_built<panel_view<double>> build_cuda(device_csr<double>&&, const panel_params&);

}  // namespace distspmv::panel
