// Builds HLL / ELL-G from a CSR block already in GPU memory (DESIGN.md §11): the same arrays as
// build() on download_csr(a), bitwise, the same statistics and the same refusals. The host sees
// the stored entry count and the last hack's width only.
//
//   1. validate_csr's checks on the GPU, build()'s parameter checks (on an empty matrix), the
//      32-bit row limits.
//   2. With sort_window W > 0, row_idx: the rows sorted by decreasing length within windows of W
//      rows, stable (CUB radix sort on (window, length) keys, ell_family).
//   3. rl in stored order; hack_offsets: per hack H times its widest row, prefix-summed; the
//      padding refusal from the total and the last hack's width.
//   4. The hacks, entry by entry, padding with column 0 (a slab per hack, ell_family::fill_slabs).
//   5. N_iter: the widest row of each warp of 32 stored rows, summed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "local_kernels/ell_family_build_cuda.hpp"
#include "local_kernels/hll/hll.hpp"

namespace distspmv::hll {
namespace {

constexpr const char* source = "hll::build_cuda";
constexpr global_index_type warp = 32;

/// build()'s padding refusal, in its words: the entries stored for the matrix's rows against nnz.
void refuse_padding(global_index_type H, offset_type in_rows, offset_type nnz, double limit) {
  char problem[512];
  std::snprintf(problem, sizeof problem,
                "hack size %lld would store %lld entries for %lld nonzeros (%.2fx, limit %.2fx); the rows are too "
                "uneven for one width",
                static_cast<long long>(H), static_cast<long long>(in_rows), static_cast<long long>(nnz),
                static_cast<double>(in_rows) / static_cast<double>(nnz), limit);
  DSPMV_BAD_INPUT(source, "padding", problem);
}

}  // namespace

template <typename V>
device_built<hll_view<V>> build_cuda(device_csr<V>&& a, const hll_params& params) {
  const device_csr_view<V> d = a.view();
  ell_family::validate(d, source);
  (void)build(csr_matrix<V, index_type>{}, params);  // build()'s parameter checks, in its words
  if (d.rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(d.rows) + " rows exceed the 32-bit local row range");
  const global_index_type rounded = (d.rows + warp - 1) / warp * warp;
  const global_index_type H = params.hack_size > 0 ? params.hack_size : std::max<global_index_type>(warp, rounded);
  if (H > std::numeric_limits<index_type>::max()) DSPMV_BAD_INPUT(source, "rows", "too many rows for one hack");
  const global_index_type hacks = (d.rows + H - 1) / H;
  device_storage scratch;  // freed on return: sort keys, CUB's temporaries, the eq. 1 sums

  device_built<hll_view<V>> built;
  hll_view<V>& v = built.view;
  v.rows = d.rows;
  v.cols = d.cols;
  v.hack_size = static_cast<index_type>(H);
  v.threads_per_row = params.threads_per_row;
  index_type* row_idx = nullptr;  // stored row i holds row row_idx[i]; null: row i
  if (params.sort_window > 0) {
    row_idx = static_cast<index_type*>(built.storage.allocate_bytes(d.rows * sizeof(index_type)));
    ell_family::sort_rows_by_length(d.row_ptr, d.rows, params.sort_window, row_idx, scratch);
  }
  auto* row_length = static_cast<index_type*>(built.storage.allocate_bytes(d.rows * sizeof(index_type)));
  ell_family::stored_row_lengths(d.row_ptr, row_idx, d.rows, std::numeric_limits<offset_type>::max(), row_length);

  // Hack offsets, and the padding check before the entries are allocated. Only the last hack
  // has rows past the end of the matrix; they do not count towards the limit.
  auto* hack_offsets = static_cast<offset_type*>(built.storage.allocate_bytes((hacks + 1) * sizeof(offset_type)));
  ell_family::row_groups by_hack;
  by_hack.length = row_length;
  by_hack.rows = d.rows;
  by_hack.group = H;
  by_hack.scale = H;
  const offset_type stored = ell_family::group_offsets(by_hack, hack_offsets, scratch);
  if (hacks > 0 && params.max_padding_ratio > 0 && d.nnz > 0) {
    const auto last = download_array(hack_offsets + hacks - 1, 2);
    const offset_type in_rows = stored - (hacks * H - d.rows) * ((last[1] - last[0]) / H);
    if (static_cast<double>(in_rows) > params.max_padding_ratio * static_cast<double>(d.nnz))
      refuse_padding(H, in_rows, d.nnz, params.max_padding_ratio);
  }

  ell_family::slab_layout layout;
  layout.rows = d.rows;
  layout.slab_rows = H;
  layout.slabs = hacks;
  layout.slab_offsets = hack_offsets;
  layout.entries = stored;
  layout.perm = row_idx;
  layout.row_length = row_length;
  layout.sentinel_last_column = false;  // padding_column, 0
  const auto slabs = ell_family::fill_slabs(d, layout, built.storage);
  v.hack_offsets = hack_offsets;
  v.row_length = row_length;
  v.col_idx = slabs.col_idx;
  v.values = slabs.values;
  v.row_idx = row_idx;

  // Statistics (hll.hpp), in build()'s terms.
  format_stats& s = built.stats;
  s.stored_bytes = static_cast<std::size_t>(hacks + 1) * sizeof(offset_type) +
                   static_cast<std::size_t>(d.rows) * sizeof(index_type) * (row_idx != nullptr ? 2 : 1) +
                   static_cast<std::size_t>(stored) * (sizeof(index_type) + sizeof(V));
  s.padding_ratio = d.nnz > 0 ? static_cast<double>(stored) / static_cast<double>(d.nnz) : 1.0;
  ell_family::row_groups by_warp;  // eq. 1 in stored order: a warp runs to its longest row
  by_warp.length = row_length;
  by_warp.rows = d.rows;
  by_warp.group = warp;
  s.n_iter = ell_family::group_offsets(by_warp, nullptr, scratch);
  s.n_p = s.n_iter * warp - d.nnz;
  s.params = (params.hack_size > 0 ? "H=" + std::to_string(H) : "one hack H=" + std::to_string(H)) +
             " sort_window=" + std::to_string(params.sort_window) + " T=" + std::to_string(params.threads_per_row);
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<hll_view<float>> build_cuda(device_csr<float>&&, const hll_params&);
template device_built<hll_view<double>> build_cuda(device_csr<double>&&, const hll_params&);

}  // namespace distspmv::hll
