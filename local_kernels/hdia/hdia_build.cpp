// Builds HDIA from CSR on the host: the diagonals of each hack, the refusal checks, then the fill.
// Deterministic; the input is only read.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "local_kernels/hdia/hdia.hpp"

namespace distspmv::hdia {
namespace {

constexpr const char* source = "hdia::build";

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

}  // namespace

template <typename V>
hdia_matrix<V> build(const csr_matrix<V, index_type>& a, const hdia_params& params) {
  validate_csr(a, source, /*allow_nonfinite=*/true);
  if (params.hack_size <= 0 || params.hack_size % 32 != 0)
    DSPMV_BAD_INPUT(source, "hack_size", std::to_string(params.hack_size) + " is not a positive multiple of 32");
  if (params.max_diagonals_per_hack <= 0)
    DSPMV_BAD_INPUT(source, "max_diagonals_per_hack", std::to_string(params.max_diagonals_per_hack) + " is not positive");
  if (params.max_padding_ratio < 1.0)
    DSPMV_BAD_INPUT(source, "max_padding_ratio", ratio_text(params.max_padding_ratio) + " is below 1");
  if (a.rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(a.rows) + " rows exceed the 32-bit local row range");

  hdia_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.params = params;
  m.hack_size = params.hack_size;
  const global_index_type H = params.hack_size;
  const global_index_type hacks = (a.rows + H - 1) / H;

  // Diagonals of each hack, refusing as soon as one hack has too many.
  m.hack_offsets.assign(static_cast<std::size_t>(hacks) + 1, 0);
  std::vector<index_type> hack_diags;
  offset_type slots_in_rows = 0;  // slots of rows inside the matrix (the last hack's tail aside)
  for (global_index_type h = 0; h < hacks; ++h) {
    hack_diags.clear();
    const global_index_type end = std::min(a.rows, (h + 1) * H);
    for (global_index_type r = h * H; r < end; ++r)
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
        hack_diags.push_back(static_cast<index_type>(a.col_idx[k] - r));  // |col - row| < 2^31
    std::sort(hack_diags.begin(), hack_diags.end());
    hack_diags.erase(std::unique(hack_diags.begin(), hack_diags.end()), hack_diags.end());
    if (static_cast<global_index_type>(hack_diags.size()) > params.max_diagonals_per_hack)
      DSPMV_BAD_INPUT(source, "diagonals",
                      "hack " + std::to_string(h) + " (rows " + std::to_string(h * H) + ".." + std::to_string(end - 1) +
                          ") has " + std::to_string(hack_diags.size()) + " diagonals, more than the limit of " +
                          std::to_string(params.max_diagonals_per_hack) +
                          " per hack; HDIA suits matrices with few diagonals");
    m.hack_offsets[h + 1] = m.hack_offsets[h] + static_cast<offset_type>(hack_diags.size());
    m.diag_offsets.insert(m.diag_offsets.end(), hack_diags.begin(), hack_diags.end());
    // The slots only grow, so the check can stop at the first hack that crosses the limit. Rows
    // past the end of the matrix do not count, so that a small matrix is not refused for the
    // tail of its only hack.
    slots_in_rows += static_cast<offset_type>(hack_diags.size()) * (end - h * H);
    if (static_cast<double>(slots_in_rows) > params.max_padding_ratio * static_cast<double>(m.nnz)) {
      std::vector<index_type> all(m.diag_offsets);
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      DSPMV_BAD_INPUT(source, "padding",
                      "would store at least " + std::to_string(slots_in_rows) + " slots for " + std::to_string(m.nnz) +
                          " nonzeros (" + ratio_text(static_cast<double>(slots_in_rows) / static_cast<double>(m.nnz)) +
                          "x, limit " + ratio_text(params.max_padding_ratio) + "x) on " + std::to_string(all.size()) +
                          " distinct diagonals in rows 0.." + std::to_string(end - 1) +
                          "; HDIA suits matrices with few diagonals");
    }
  }

  const offset_type slots = m.hack_offsets.back() * H;
  m.values.assign(static_cast<std::size_t>(slots), V(0));
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type h = r / H;
    const auto first = m.diag_offsets.begin() + m.hack_offsets[h];
    const auto last = m.diag_offsets.begin() + m.hack_offsets[h + 1];
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const auto d = static_cast<index_type>(a.col_idx[k] - r);
      const offset_type diag = std::lower_bound(first, last, d) - m.diag_offsets.begin();
      m.values[diag * H + (r - h * H)] = a.values[k];
    }
  }

  m.stats.stored_bytes = m.hack_offsets.size() * sizeof(offset_type) + m.diag_offsets.size() * sizeof(index_type) +
                         m.values.size() * sizeof(V);
  m.stats.padding_ratio = m.nnz > 0 ? static_cast<double>(slots) / static_cast<double>(m.nnz) : 1.0;
  // N_iter (seed 000 eq. 1): a warp of 32 rows of hack h runs over that hack's diagonals.
  for (global_index_type w = 0; w < a.rows; w += 32) {
    const global_index_type h = w / H;
    m.stats.n_iter += m.hack_offsets[h + 1] - m.hack_offsets[h];
  }
  m.stats.n_p = m.stats.n_iter * 32 - m.nnz;
  global_index_type most = 0;
  for (global_index_type h = 0; h < hacks; ++h) most = std::max<global_index_type>(most, m.hack_offsets[h + 1] - m.hack_offsets[h]);
  m.stats.params = "H=" + std::to_string(H) + " max_diagonals_in_a_hack=" + std::to_string(most);
  return m;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const hdia_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  const global_index_type H = m.hack_size;
  a.row_ptr.assign(1, 0);
  for (global_index_type r = 0; r < m.rows; ++r) {
    const global_index_type h = r / H;
    for (offset_type d = m.hack_offsets[h]; d < m.hack_offsets[h + 1]; ++d) {
      const global_index_type c = r + m.diag_offsets[d];
      const V v = m.values[d * H + (r - h * H)];
      if (c >= 0 && c < m.cols && v != V(0)) {
        a.col_idx.push_back(static_cast<index_type>(c));
        a.values.push_back(v);
      }
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

template hdia_matrix<float> build(const csr_matrix<float, index_type>&, const hdia_params&);
template hdia_matrix<double> build(const csr_matrix<double, index_type>&, const hdia_params&);
template csr_matrix<float, index_type> to_csr(const hdia_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const hdia_matrix<double>&);

}  // namespace distspmv::hdia
