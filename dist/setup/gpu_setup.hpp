// Setup on the GPU (DESIGN.md §11): a rank's rows stream through the host in bounded chunks of
// rows and are split on the GPU into the two local operators' CSR blocks.
//
//   reader(rows [a, b)) ──host CSR chunk (global ids)──▶ GPU: classify each entry (owned column or
//        (file, generator,                               ghost), count per row, compact owned
//         caller's arrays)                               entries into A_local (local 32-bit ids),
//                                                        ghost entries into the halo list
//   after the last chunk: A_local's row pointer (a scan), the ghost ids (sort + unique), the halo
//   block's local columns (binary search), the diagonal.
//
// Used when the partition keeps every row on the rank that reads it (one rank, or the block
// partition of the read ranges): then nothing moves between ranks, and the host holds at most
// two chunks of rows (one being read while the GPU splits the other) plus per-row plans. The
// halo block (boundary rows x ghost columns) comes back to the host, as the host setup makes it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"

namespace distspmv::dist {

/// Rows [range.begin, range.end) of the caller's layout: host CSR with global column ids,
/// validated by the reader.
using row_reader = std::function<csr_matrix<double>(row_range)>;

struct gpu_split_options {
  offset_type nnz_hint = 0;        ///< expected entries of the rank (0: grow as chunks arrive)
  bool keep_for_update = false;    ///< keep what update_values needs on the GPU (5 B per entry)
};

/// The split of one rank's rows. A_local stays on the GPU; the halo block and the per-row plans
/// are on the host.
template <typename V>
struct gpu_split {
  device_csr<V> a_local;                     ///< owned rows x owned columns, local ids
  csr_matrix<double, index_type> a_halo;     ///< boundary rows x ghost columns (compressed)
  std::vector<index_type> halo_rows;         ///< owned row of each a_halo row
  std::vector<global_index_type> ghost_ids;  ///< global id of each ghost column, sorted
  std::vector<V> diagonal;                   ///< a(i, i) of each owned row (0 where absent)
  offset_type nnz = 0;                       ///< entries read (A_local + A_halo)
  /// keep_for_update: per entry in read order, 1 if it went to A_local; A_local's pattern.
  device_storage kept;
  const std::uint8_t* entry_is_local = nullptr;
  const offset_type* kept_row_ptr = nullptr;
  const index_type* kept_col_idx = nullptr;
};

/// Streams rows [owned.begin, owned.end) through the GPU in `chunks` (consecutive, covering
/// `owned`; the next chunk is read on a host thread while the GPU splits the current one) and
/// splits them: columns in [owned.begin, owned.end) are owned (local id = column - owned.begin),
/// the others ghosts. Out of GPU memory is a bad_input naming the bytes (device_storage).
template <typename V>
gpu_split<V> split_rows_on_gpu(row_range owned, global_index_type cols, const std::vector<row_range>& chunks,
                               const row_reader& read, const gpu_split_options& options);

/// update_values on a split made with keep_for_update: new values of the entries in read order
/// (host or device pointer) become A_local (a new device CSR with the kept pattern) and the
/// halo block's values.
template <typename V>
device_csr<V> split_values_on_gpu(const gpu_split<V>& split, const V* values, bool values_on_device,
                                  csr_matrix<double, index_type>& a_halo);

/// The diagonal of a device CSR block (0 where a row has none), on the host.
template <typename V>
std::vector<V> diagonal_on_gpu(const device_csr_view<V>& a);

/// Row chunks of [range) with about `chunk_nnz` entries each, from an estimate of the entries
/// per row (the chunks' real sizes may differ; no row is cut).
inline std::vector<row_range> row_chunks(row_range range, double entries_per_row, offset_type chunk_nnz) {
  const double per_row = entries_per_row > 1 ? entries_per_row : 1.0;
  const auto rows = static_cast<global_index_type>(static_cast<double>(chunk_nnz) / per_row);
  const global_index_type step = rows > 1 ? rows : 1;
  std::vector<row_range> chunks;
  for (global_index_type a = range.begin; a < range.end; a += step)
    chunks.push_back({a, a + step < range.end ? a + step : range.end});
  return chunks;
}

}  // namespace distspmv::dist
