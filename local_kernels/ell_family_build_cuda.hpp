// The steps the GPU builders of the ELL family (ELLR-T, PELLR, HLL / ELL-G; DESIGN.md §11) share,
// so that each <fmt>_build_cuda.cu only says how its format lays out its rows:
//   - validate: validate_csr's refusals on a device CSR;
//   - sort_rows_by_length: the stable sort by decreasing length (global, or within windows);
//   - stored_row_lengths: row lengths through a permutation, clipped to a width;
//   - group_offsets: per group of rows the widest row, prefix-summed (slab offsets, eq. 1 sums);
//   - fill_slabs: column-major slabs with padding, one thread per stored entry.
// Every step runs on the GPU on the default stream; the host sees scalars only (a total, a count).
// Plain C++ declarations; the kernels are in ell_family_build_cuda.cu.
#pragma once

#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"

namespace distspmv::ell_family {

/// Throws bad_input where validate_csr(download_csr(a), source, allow_nonfinite = true) does,
/// with the same `where` and `problem`, checking in its order (shape, row pointer start,
/// decrease, end, then the first nonzero with a column out of range or not after its row's
/// previous one).
template <typename ValueType>
void validate(const device_csr_view<ValueType>& a, const char* source);

/// perm[i] = the row stored at position i when the rows are sorted by decreasing length within
/// windows of `window` consecutive rows (0: one window of all rows), equal lengths in row order:
/// std::stable_sort with `>` on each window. perm has `rows` entries (rows < 2^31).
void sort_rows_by_length(const offset_type* row_ptr, global_index_type rows, global_index_type window,
                         index_type* perm, device_storage& scratch);

/// out[i] = min(length of row perm[i], cap) for i < rows (perm null: row i).
void stored_row_lengths(const offset_type* row_ptr, const index_type* perm, global_index_type rows, offset_type cap,
                        index_type* out);

/// Rows cut into groups of `group` consecutive rows; a row's width is
/// ceil(max(0, len - skip) / divisor), its length len = length[i], or row_ptr[i + 1] - row_ptr[i]
/// where length is null.
struct row_groups {
  const index_type* length = nullptr;
  const offset_type* row_ptr = nullptr;
  global_index_type rows = 0;
  global_index_type group = 32;  ///< a power of two up to 32, or a multiple of 32
  offset_type divisor = 1;
  offset_type skip = 0;
  offset_type scale = 1;
};

/// offsets[0] = 0, offsets[g + 1] = offsets[g] + scale * (the widest row of group g), for the
/// ceil(rows / group) groups: HLL's hack offsets (group H, scale H), PELLR's warp offsets (group
/// and scale 32), or with scale 1 a sum of per-group iterations (eq. 1 of seed 000). `offsets`
/// has ceil(rows / group) + 1 entries; null: a scratch array. Returns the last offset.
offset_type group_offsets(const row_groups& g, offset_type* offsets, device_storage& scratch);

/// Column-major slabs. Stored row i = s * slab_rows + local belongs to slab s; its entry k sits at
///   slab_offsets[s] + (k / T) * (slab_rows * T) + local * T + k % T        (T: threads_per_row)
/// and is entry first_entry + k of CSR row perm[i] (perm null: row i) for k < row_length[i]
/// (row_length null: every entry of the slab is data), else padding: value 0 and column 0, or
/// with sentinel_last_column the row's last stored column (0 where it stores none). Slots of
/// rows >= rows are padding with column 0.
struct slab_layout {
  global_index_type rows = 0;
  global_index_type slab_rows = 32;
  int threads_per_row = 1;
  global_index_type slabs = 0;
  const offset_type* slab_offsets = nullptr;  ///< [slabs + 1]; null: one slab of `entries`
  offset_type entries = 0;                    ///< slab_offsets[slabs]
  const index_type* perm = nullptr;
  const index_type* row_length = nullptr;
  offset_type first_entry = 0;
  bool sentinel_last_column = false;
};

/// A format's padded column and value arrays, `entries` slots each.
template <typename ValueType>
struct slab_arrays {
  index_type* col_idx = nullptr;
  ValueType* values = nullptr;
};

/// Allocates the layout's `entries` slots of columns and values in `storage` and writes every one.
template <typename ValueType>
slab_arrays<ValueType> fill_slabs(const device_csr_view<ValueType>& a, const slab_layout& layout,
                                  device_storage& storage);

}  // namespace distspmv::ell_family
