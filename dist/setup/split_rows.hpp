// Splitting a rank's rows where no row changes rank (one rank, or the block partition of the
// read ranges; DESIGN.md §1, §11). The rows stream through the host in bounded chunks and are
// split into the two local operators' CSR blocks: columns the rank owns go to A_local (local
// 32-bit ids), the others to the halo list; then the ghost ids (sorted, unique), the halo block's
// local columns and the diagonal.
//
//   reader(rows [a, b)) ──host CSR chunk (global ids)──▶ split (GPU: CUB classify, count per row,
//        (file, generator)                               compact; host: one pass)
//
// The host holds at most two chunks (one being read on a thread while the other is split) plus
// per-row plans, never a copy of the rank's rows: the GPU path keeps A_local on the GPU, the host
// path builds it in its final 32-bit form. The host version is the GPU version's oracle.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"

namespace distspmv::dist {

/// Rows [range.begin, range.end) of the caller's layout: host CSR with global column ids,
/// validated by the reader.
using row_reader = std::function<csr_matrix<double>(row_range)>;

struct split_options {
  offset_type nnz_hint = 0;        ///< expected entries of the rank (0: grow as chunks arrive)
  bool keep_for_update = false;    ///< keep what update_values needs (GPU: 5 B per entry; host: 1 B)
};

/// Calls `split(chunk, k)` on each chunk of rows in order; chunk k + 1 is read on a host thread
/// while chunk k is split. Exceptions of the reader reach the caller. Returns the seconds spent
/// waiting for the reader (the rest of the time went to splitting).
template <typename Split>
double for_each_chunk(const std::vector<row_range>& chunks, const row_reader& read, Split&& split) {
  double waited = 0;
  std::future<csr_matrix<double>> next;
  if (!chunks.empty()) next = std::async(std::launch::async, read, chunks[0]);
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    csr_matrix<double> chunk = next.get();
    waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (k + 1 < chunks.size()) next = std::async(std::launch::async, read, chunks[k + 1]);
    split(std::move(chunk), k);
  }
  return waited;
}

/// The halo part of a split, on the host in both versions.
struct halo_split {
  csr_matrix<double, index_type> a_halo;     ///< boundary rows x ghost columns (compressed)
  std::vector<index_type> halo_rows;         ///< owned row of each a_halo row
  std::vector<global_index_type> ghost_ids;  ///< global id of each ghost column, sorted
  offset_type nnz = 0;                       ///< entries read (A_local + A_halo)
  /// Where the time went: waiting for the reader, copying chunks to the GPU, the rest (splitting).
  double read_wait_s = 0, upload_s = 0, split_s = 0;
};

/// The host split (the host backend's setup, and the GPU split's oracle).
template <typename V>
struct host_split : halo_split {
  csr_matrix<V, index_type> a_local;         ///< owned rows x owned columns, local ids
  std::vector<V> diagonal;                   ///< a(i, i) of each owned row (0 where absent)
  std::vector<std::uint8_t> entry_is_local;  ///< keep_for_update: per entry in read order
};

template <typename V>
host_split<V> split_rows_on_host(row_range owned, const std::vector<row_range>& chunks, const row_reader& read,
                                 const split_options& options);

/// update_values on a host split made with keep_for_update: new values of the entries in read
/// order into split.a_local (and its diagonal) and `a_halo` (the plan's halo block; the split's
/// own was handed to the plan).
template <typename V>
void split_values_on_host(host_split<V>& split, const V* values, csr_matrix<double, index_type>& a_halo);

/// The GPU split: A_local stays on the GPU; the halo block and the per-row plans are on the host.
template <typename V>
struct gpu_split : halo_split {
  device_csr<V> a_local;                     ///< owned rows x owned columns, local ids
  std::vector<V> diagonal;                   ///< a(i, i) of each owned row (0 where absent)
  /// keep_for_update: per entry in read order, 1 if it went to A_local; A_local's pattern.
  device_storage kept;
  global_index_type kept_rows = 0;
  offset_type kept_local_nnz = 0;
  const std::uint8_t* entry_is_local = nullptr;
  const offset_type* kept_row_ptr = nullptr;
  const index_type* kept_col_idx = nullptr;
  /// Where a row order was applied (permute_split_on_gpu): per entry of the kept pattern, the
  /// entry of the read order's local block it takes its value from; null: the same entry.
  const offset_type* kept_gather = nullptr;
};

/// Streams rows [owned.begin, owned.end) through the GPU in `chunks` (consecutive, covering
/// `owned`; the next chunk is read on a host thread while the GPU splits the current one) and
/// splits them: columns in [owned.begin, owned.end) are owned (local id = column - owned.begin),
/// the others ghosts. Out of GPU memory is a bad_input naming the bytes (device_storage).
template <typename V>
gpu_split<V> split_rows_on_gpu(row_range owned, const std::vector<row_range>& chunks, const row_reader& read,
                               const split_options& options);

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
/// per row (the chunks' real sizes may differ; no row is cut); none for an empty range. Ranks hold
/// different numbers of chunks: agree once around a loop over them, never once per chunk.
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
