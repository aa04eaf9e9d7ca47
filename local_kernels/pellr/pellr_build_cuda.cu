// Builds PELLR from a CSR block already in GPU memory (DESIGN.md §11): the same arrays as build()
// on download_csr(a), bitwise, the same statistics and the same refusals. The host sees the
// stored entry count only.
//
//   1. validate_csr's checks on the GPU, then build()'s 32-bit row limit.
//   2. perm: the rows sorted by decreasing length, stable (CUB radix sort, ell_family).
//   3. rl[i] = length of row perm[i]; warp_ptr: per warp 32 times its widest row (its first,
//      rl is non-increasing), prefix-summed.
//   4. The per-warp column-major blocks, entry by entry, with the sentinel padding (a slab per
//      warp, ell_family::fill_slabs).
#include <cuda_runtime.h>

#include <limits>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "local_kernels/ell_family_build_cuda.hpp"
#include "local_kernels/pellr/pellr.hpp"

namespace distspmv::pellr {
namespace {

constexpr const char* source = "pellr::build_cuda";
constexpr global_index_type warp = 32;

}  // namespace

template <typename V>
device_built<pellr_view<V>> build_cuda(device_csr<V>&& a, const pellr_params& params) {
  (void)params;  // PELLR has no parameter
  const device_csr_view<V> d = a.view();
  ell_family::validate(d, source);
  if (d.rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(d.rows) + " rows do not fit the 32-bit permutation");
  device_storage scratch;  // freed on return: sort keys, CUB's temporaries

  device_built<pellr_view<V>> built;
  pellr_view<V>& v = built.view;
  v.rows = d.rows;
  v.cols = d.cols;
  const global_index_type warps = (d.rows + warp - 1) / warp;
  auto* perm = static_cast<index_type*>(built.storage.allocate_bytes(d.rows * sizeof(index_type)));
  auto* row_length = static_cast<index_type*>(built.storage.allocate_bytes(d.rows * sizeof(index_type)));
  auto* warp_ptr = static_cast<offset_type*>(built.storage.allocate_bytes((warps + 1) * sizeof(offset_type)));
  ell_family::sort_rows_by_length(d.row_ptr, d.rows, 0, perm, scratch);
  ell_family::stored_row_lengths(d.row_ptr, perm, d.rows, std::numeric_limits<offset_type>::max(), row_length);
  ell_family::row_groups by_warp;
  by_warp.length = row_length;
  by_warp.rows = d.rows;
  by_warp.group = warp;
  by_warp.scale = warp;
  const offset_type entries = ell_family::group_offsets(by_warp, warp_ptr, scratch);

  ell_family::slab_layout layout;
  layout.rows = d.rows;
  layout.slab_rows = warp;
  layout.slabs = warps;
  layout.slab_offsets = warp_ptr;
  layout.entries = entries;
  layout.perm = perm;
  layout.row_length = row_length;
  layout.sentinel_last_column = true;
  const auto slabs = ell_family::fill_slabs(d, layout, built.storage);
  v.perm = perm;
  v.row_length = row_length;
  v.warp_ptr = warp_ptr;
  v.col_idx = slabs.col_idx;
  v.values = slabs.values;

  // Statistics (pellr.hpp), in build()'s terms.
  format_stats& s = built.stats;
  s.stored_bytes = 2 * static_cast<std::size_t>(d.rows) * sizeof(index_type) +
                   static_cast<std::size_t>(warps + 1) * sizeof(offset_type) +
                   static_cast<std::size_t>(entries) * (sizeof(index_type) + sizeof(V));
  s.padding_ratio = d.nnz > 0 ? static_cast<double>(entries) / static_cast<double>(d.nnz) : 1.0;
  s.n_iter = entries / warp;  // eq. 1: the sum of the warp widths
  s.n_p = s.n_iter * warp - d.nnz;
  s.params = "sorted=global warp=32";
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return built;
}

template device_built<pellr_view<float>> build_cuda(device_csr<float>&&, const pellr_params&);
template device_built<pellr_view<double>> build_cuda(device_csr<double>&&, const pellr_params&);

}  // namespace distspmv::pellr
