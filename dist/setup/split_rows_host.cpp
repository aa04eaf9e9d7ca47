// The host split of a rank's rows (split_rows.hpp): one pass over each chunk, short enough to
// check by eye; the GPU split is tested against it.
#include <algorithm>

#include "dist/setup/split_rows.hpp"

namespace distspmv::dist {

template <typename V>
host_split<V> split_rows_on_host(row_range owned, const std::vector<row_range>& chunks, const row_reader& read,
                                 const split_options& options) {
  host_split<V> out;
  auto& a = out.a_local;
  const global_index_type rows = owned.size();
  a.rows = a.cols = rows;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  if (options.nnz_hint > 0) {  // exact for stencils and files: no growth, no second copy
    a.col_idx.reserve(static_cast<std::size_t>(options.nnz_hint));
    a.values.reserve(static_cast<std::size_t>(options.nnz_hint));
  }
  std::vector<global_index_type> halo_cols;  // global ids until the ghosts are known
  auto& h = out.a_halo;
  const auto t0 = std::chrono::steady_clock::now();
  out.read_wait_s = for_each_chunk(chunks, read, [&](csr_matrix<double> chunk, std::size_t k) {
    const global_index_type r0 = chunks[k].begin - owned.begin;
    for (global_index_type i = 0; i < chunk.rows; ++i) {
      const std::size_t halo_before = halo_cols.size();
      for (offset_type e = chunk.row_ptr[i]; e < chunk.row_ptr[i + 1]; ++e) {
        const global_index_type c = chunk.col_idx[e];
        const bool local = c >= owned.begin && c < owned.end;
        if (local) {
          a.col_idx.push_back(static_cast<index_type>(c - owned.begin));
          a.values.push_back(static_cast<V>(chunk.values[e]));
        } else {
          halo_cols.push_back(c);
          h.values.push_back(static_cast<double>(static_cast<V>(chunk.values[e])));
        }
        if (options.keep_for_update) out.entry_is_local.push_back(local);
      }
      a.row_ptr[r0 + i + 1] = static_cast<offset_type>(a.col_idx.size());
      if (halo_cols.size() > halo_before) {
        out.halo_rows.push_back(static_cast<index_type>(r0 + i));
        h.row_ptr.push_back(static_cast<offset_type>(halo_cols.size()));
      }
    }
    out.nnz += chunk.nnz();
  });
  out.split_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - out.read_wait_s;

  out.ghost_ids = halo_cols;
  std::sort(out.ghost_ids.begin(), out.ghost_ids.end());
  out.ghost_ids.erase(std::unique(out.ghost_ids.begin(), out.ghost_ids.end()), out.ghost_ids.end());
  h.rows = static_cast<global_index_type>(out.halo_rows.size());
  h.cols = static_cast<global_index_type>(out.ghost_ids.size());
  h.col_idx.resize(halo_cols.size());
  for (std::size_t e = 0; e < halo_cols.size(); ++e)
    h.col_idx[e] = static_cast<index_type>(std::lower_bound(out.ghost_ids.begin(), out.ghost_ids.end(), halo_cols[e]) -
                                           out.ghost_ids.begin());

  out.diagonal.assign(static_cast<std::size_t>(rows), V(0));
  for (global_index_type r = 0; r < rows; ++r) {
    const auto first = a.col_idx.begin() + a.row_ptr[r], last = a.col_idx.begin() + a.row_ptr[r + 1];
    const auto d = std::lower_bound(first, last, static_cast<index_type>(r));
    if (d != last && *d == r) out.diagonal[r] = a.values[d - a.col_idx.begin()];
  }
  return out;
}

template <typename V>
void split_values_on_host(host_split<V>& split, const V* values, csr_matrix<double, index_type>& a_halo) {
  offset_type local = 0, halo = 0;
  for (std::size_t e = 0; e < split.entry_is_local.size(); ++e)
    if (split.entry_is_local[e])
      split.a_local.values[local++] = values[e];
    else
      a_halo.values[halo++] = static_cast<double>(values[e]);
  for (global_index_type r = 0; r < split.a_local.rows; ++r)
    for (offset_type k = split.a_local.row_ptr[r]; k < split.a_local.row_ptr[r + 1]; ++k)
      if (split.a_local.col_idx[k] == r) split.diagonal[r] = split.a_local.values[k];
}

#define DSPMV_INSTANTIATE(V)                                                                                 \
  template host_split<V> split_rows_on_host(row_range, const std::vector<row_range>&, const row_reader&,     \
                                            const split_options&);                                          \
  template void split_values_on_host(host_split<V>&, const V*, csr_matrix<double, index_type>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::dist
