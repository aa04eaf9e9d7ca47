// Builds ELLR-T from a CSR block already in GPU memory (DESIGN.md §11): the same arrays as
// build() on download_csr(a), bitwise, the same statistics and the same refusals. The host sees
// scalars only (the longest row, the HYB width's row, counts and totals).
//
//   1. validate_csr's checks on the GPU, then build()'s own check of T (on an empty matrix).
//   2. The longest row (one group of all rows), T and K as build() picks them; the HYB width
//      from the rows sorted by length (the row a third of the way down).
//   3. rl = min(length, K); the stripe layout is one slab of rows_padded rows with T threads per
//      row, filled entry by entry with the sentinel padding (ell_family::fill_slabs).
//   4. 16-bit column offsets: where no row's first or last ELL column lies beyond an int16 from the
//      row (a count over the rows), col - row per slot replaces the 32-bit columns, which are freed.
//   5. The tail: per row, 1 if it is longer than K and its entries past K, both prefix-summed
//      (ell_family::group_offsets), give each tail row its index and offset; tail_scatter_kernel
//      lists them; the entries are gathered as one slab per tail row starting at entry K.
//   6. N_iter: the widest ceil(rl / T) of each warp's 32 / T rows, plus ceil(len / 32) per tail row.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "local_kernels/ell_family_build_cuda.hpp"
#include "local_kernels/ellr/ellr.hpp"

namespace distspmv::ellr {
namespace {

constexpr const char* source = "ellr::build_cuda";
constexpr global_index_type warp = 32;
constexpr int block = 256;

offset_type round_up(offset_type n, offset_type m) { return (n + m - 1) / m * m; }

/// For each row r with a tail (ranks[r + 1] > ranks[r]): tail_rows[ranks[r]] = r and
/// tail_ptr[ranks[r]] = starts[r]; thread `rows` closes tail_ptr with the tail's total.
/// ranks: tail rows before r; starts: tail entries before r (prefix sums over the rows).
__global__ void tail_scatter_kernel(const offset_type* __restrict__ ranks, const offset_type* __restrict__ starts,
                                    global_index_type rows, index_type* tail_rows, offset_type* tail_ptr) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (r == rows) tail_ptr[ranks[rows]] = starts[rows];
  if (r < rows && ranks[r + 1] > ranks[r]) {
    tail_rows[ranks[r]] = static_cast<index_type>(r);
    tail_ptr[ranks[r]] = starts[r];
  }
}

/// build()'s hyb_width on the GPU: the length of the row at position max(1, rows / 3) - 1 of
/// the rows sorted by decreasing length, rounded up to a multiple of T.
template <typename V>
index_type hyb_width(const device_csr_view<V>& d, int t, device_storage& scratch) {
  if (d.rows == 0) return 0;
  auto* sorted = static_cast<index_type*>(scratch.allocate_bytes(d.rows * sizeof(index_type)));
  ell_family::sort_rows_by_length(d.row_ptr, d.rows, 0, sorted, scratch);
  const global_index_type need = std::max<global_index_type>(1, d.rows / 3);
  const index_type r = download_array(sorted + need - 1, 1)[0];
  const auto bounds = download_array(d.row_ptr + r, 2);
  return static_cast<index_type>(round_up(bounds[1] - bounds[0], t));
}

/// Rows whose first or last ELL column lies beyond a 16-bit offset from the row (atomicAdd;
/// columns ascend within a row, so these two decide).
__global__ void offsets_misfit_kernel(const index_type* __restrict__ col_idx, const index_type* __restrict__ row_length,
                                      global_index_type rows, offset_type stripe, int t, unsigned long long* misfits) {
  for (global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<global_index_type>(gridDim.x) * blockDim.x) {
    const index_type len = row_length[r];
    if (len == 0) continue;
    const offset_type first = col_idx[r * t], last = col_idx[((len - 1) / t) * stripe + r * t + (len - 1) % t];
    if (first - r < min_column_offset || last - r > max_column_offset) atomicAdd(misfits, 1ull);
  }
}

/// build()'s to_column_offsets: col - row per ELL slot, 0 for padding.
__global__ void column_offsets_kernel(const index_type* __restrict__ col_idx, const index_type* __restrict__ row_length,
                                      global_index_type rows, offset_type entries, offset_type stripe, int t,
                                      std::int16_t* __restrict__ col_offset) {
  for (offset_type at = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x; at < entries;
       at += static_cast<offset_type>(gridDim.x) * blockDim.x) {
    const global_index_type r = (at % stripe) / t;
    const offset_type k = (at / stripe) * t + at % t;
    col_offset[at] = r < rows && k < row_length[r] ? static_cast<std::int16_t>(col_idx[at] - r) : std::int16_t{0};
  }
}

unsigned grid_for(offset_type n) {
  return static_cast<unsigned>(std::clamp<offset_type>((n + block - 1) / block, 1, 8192));
}

/// 16-bit column offsets in place of v.col_idx where every ELL entry's fits (build()'s rule).
template <typename V>
void use_column_offsets(ellr_view<V>& v, offset_type entries, device_storage& storage, device_storage& scratch) {
  if (entries == 0) return;
  auto* misfits = static_cast<unsigned long long*>(scratch.allocate_bytes(sizeof(unsigned long long)));
  DSPMV_CUDA_CHECK(cudaMemsetAsync(misfits, 0, sizeof(unsigned long long), nullptr));
  offsets_misfit_kernel<<<grid_for(v.rows), block, 0, nullptr>>>(v.col_idx, v.row_length, v.rows, v.stripe,
                                                                 v.threads_per_row, misfits);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  if (download_array(misfits, 1)[0] > 0) return;
  auto* col_offset = static_cast<std::int16_t*>(storage.allocate_bytes(entries * sizeof(std::int16_t)));
  column_offsets_kernel<<<grid_for(entries), block, 0, nullptr>>>(v.col_idx, v.row_length, v.rows, entries, v.stripe,
                                                                  v.threads_per_row, col_offset);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  storage.free_allocation(v.col_idx);
  v.col_idx = nullptr;
  v.col_offset = col_offset;
}

}  // namespace

template <typename V>
device_built<ellr_view<V>> build_cuda(device_csr<V>&& a, const ellr_params& params) {
  const device_csr_view<V> d = a.view();
  ell_family::validate(d, source);
  (void)build(csr_matrix<V, index_type>{}, params);  // build()'s refusal of T, in its words
  device_storage scratch;  // freed on return: sort keys, prefix sums, CUB's temporaries

  // T and K exactly as build() picks them (the same double arithmetic).
  const global_index_type rows_padded = round_up(d.rows, warp);
  ell_family::row_groups all;
  all.row_ptr = d.row_ptr;
  all.rows = d.rows;
  all.group = std::max<global_index_type>(rows_padded, warp);  // one group: its width is the longest row
  const offset_type max_len = ell_family::group_offsets(all, nullptr, scratch);
  const double rows = static_cast<double>(d.rows), nnz = static_cast<double>(d.nnz);
  const int t = params.threads_per_row > 0
                    ? params.threads_per_row
                    : threads_per_row_for(d.rows > 0 ? nnz / rows : 0.0, nnz > 0 ? rows * max_len / nnz : 1.0,
                                          d.rows, max_len);
  const offset_type full_width = round_up(max_len, t);
  const double full_entries = static_cast<double>(rows_padded) * static_cast<double>(full_width);
  const bool use_tail = params.overflow_padding_ratio > 0 &&
                        full_entries > params.overflow_padding_ratio * static_cast<double>(d.nnz) &&
                        full_entries > static_cast<double>(params.overflow_min_entries);
  const index_type width = use_tail ? hyb_width(d, t, scratch) : static_cast<index_type>(full_width);
  const offset_type stripe = rows_padded * t;
  const offset_type entries = width / t * stripe;

  device_built<ellr_view<V>> built;
  ellr_view<V>& v = built.view;
  v.rows = d.rows;
  v.cols = d.cols;
  v.threads_per_row = t;
  v.stripe = stripe;
  v.stored_stripes = static_cast<index_type>(width / t);
  auto* row_length = static_cast<index_type*>(built.storage.allocate_bytes(d.rows * sizeof(index_type)));
  ell_family::stored_row_lengths(d.row_ptr, nullptr, d.rows, width, row_length);
  ell_family::slab_layout ell;
  ell.rows = d.rows;
  ell.slab_rows = rows_padded;
  ell.threads_per_row = t;
  ell.slabs = 1;
  ell.entries = entries;
  ell.row_length = row_length;
  ell.sentinel_last_column = true;
  const auto slabs = ell_family::fill_slabs(d, ell, built.storage);
  v.row_length = row_length;
  v.col_idx = slabs.col_idx;
  v.values = slabs.values;
  if (params.column_offsets) use_column_offsets(v, entries, built.storage, scratch);

  // The tail: rows longer than K, ascending, with their entries past K.
  offset_type tail_nnz = 0;
  offset_type* tail_ptr = nullptr;
  if (!use_tail) {  // no tail: tail_ptr = {0}
    tail_ptr = static_cast<offset_type*>(built.storage.allocate_bytes(sizeof(offset_type)));
    DSPMV_CUDA_CHECK(cudaMemsetAsync(tail_ptr, 0, sizeof(offset_type), nullptr));
  } else {
    ell_family::row_groups per_row = all;  // one group per row, its width past K
    per_row.group = 1;
    per_row.skip = width;
    auto* starts = static_cast<offset_type*>(scratch.allocate_bytes((d.rows + 1) * sizeof(offset_type)));
    auto* ranks = static_cast<offset_type*>(scratch.allocate_bytes((d.rows + 1) * sizeof(offset_type)));
    tail_nnz = ell_family::group_offsets(per_row, starts, scratch);
    per_row.divisor = offset_type(1) << 32;  // above any row length: 1 for a row with a tail, else 0
    v.n_tail = ell_family::group_offsets(per_row, ranks, scratch);
    auto* tail_rows = static_cast<index_type*>(built.storage.allocate_bytes(v.n_tail * sizeof(index_type)));
    tail_ptr = static_cast<offset_type*>(built.storage.allocate_bytes((v.n_tail + 1) * sizeof(offset_type)));
    tail_scatter_kernel<<<static_cast<unsigned>((d.rows + block) / block), block, 0, nullptr>>>(ranks, starts, d.rows,
                                                                                              tail_rows, tail_ptr);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    ell_family::slab_layout tail;  // one slab of one row per tail row, all data, from entry K on
    tail.rows = v.n_tail;
    tail.slab_rows = 1;
    tail.slabs = v.n_tail;
    tail.slab_offsets = tail_ptr;
    tail.entries = tail_nnz;
    tail.perm = tail_rows;
    tail.first_entry = width;
    const auto tail_slabs = ell_family::fill_slabs(d, tail, built.storage);
    v.tail_rows = tail_rows;
    v.tail_col_idx = tail_slabs.col_idx;
    v.tail_values = tail_slabs.values;
  }
  v.tail_ptr = tail_ptr;

  // Statistics (ellr.hpp), in build()'s terms.
  format_stats& s = built.stats;
  const auto n_tail = static_cast<std::size_t>(v.n_tail);
  s.stored_bytes = static_cast<std::size_t>(entries) * (sizeof(V) + (v.col_offset ? sizeof(std::int16_t) : sizeof(index_type))) +
                   static_cast<std::size_t>(d.rows) * sizeof(index_type) + n_tail * sizeof(index_type) +
                   (n_tail + 1) * sizeof(offset_type) + static_cast<std::size_t>(tail_nnz) * (sizeof(index_type) + sizeof(V));
  s.padding_ratio = d.nnz > 0 ? static_cast<double>(entries + tail_nnz) / static_cast<double>(d.nnz) : 1.0;
  ell_family::row_groups warps;  // a warp holds 32 / T rows, each needing ceil(rl / T) iterations
  warps.length = row_length;
  warps.rows = d.rows;
  warps.group = warp / t;
  warps.divisor = t;
  s.n_iter = ell_family::group_offsets(warps, nullptr, scratch);
  if (v.n_tail > 0) {
    ell_family::row_groups tail_rows;  // one warp per tail row: ceil(len / 32) iterations
    tail_rows.row_ptr = tail_ptr;
    tail_rows.rows = v.n_tail;
    tail_rows.group = 1;
    tail_rows.divisor = warp;
    s.n_iter += ell_family::group_offsets(tail_rows, nullptr, scratch);
  }
  s.n_p = s.n_iter * warp - d.nnz;
  s.params = "T=" + std::to_string(t) + " K=" + std::to_string(width) +
             (params.threads_per_row > 0 ? "" : " (T from mean row length and padding)");
  if (v.col_offset) s.params += " col16";
  if (v.n_tail > 0) s.params += " tail_rows=" + std::to_string(v.n_tail) + " tail_nnz=" + std::to_string(tail_nnz);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<ellr_view<float>> build_cuda(device_csr<float>&&, const ellr_params&);
template device_built<ellr_view<double>> build_cuda(device_csr<double>&&, const ellr_params&);

}  // namespace distspmv::ellr
