// Builds PELLR from CSR: the stable sort of the rows by length (longest first), the per-warp
// column-major blocks with sentinel padding, and the statistics.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "local_kernels/pellr/pellr.hpp"

namespace distspmv::pellr {
namespace {

constexpr global_index_type warp = 32;

}  // namespace

template <typename V>
pellr_matrix<V> build(const csr_matrix<V, index_type>& a, const pellr_params& params) {
  validate_csr(a, "pellr::build", /*allow_nonfinite=*/true);
  if (a.rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT("pellr::build", "rows", std::to_string(a.rows) + " rows do not fit the 32-bit permutation");

  pellr_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.params = params;

  m.perm.resize(static_cast<std::size_t>(a.rows));
  std::iota(m.perm.begin(), m.perm.end(), index_type(0));
  std::stable_sort(m.perm.begin(), m.perm.end(),
                   [&a](index_type x, index_type y) { return a.row_length(x) > a.row_length(y); });
  m.row_length.resize(m.perm.size());
  for (global_index_type i = 0; i < a.rows; ++i) m.row_length[i] = static_cast<index_type>(a.row_length(m.perm[i]));

  const global_index_type warps = (a.rows + warp - 1) / warp;
  m.warp_ptr.resize(static_cast<std::size_t>(warps) + 1);
  for (global_index_type w = 0; w < warps; ++w) m.warp_ptr[w + 1] = m.warp_ptr[w] + warp * m.row_length[w * warp];
  m.col_idx.assign(static_cast<std::size_t>(m.warp_ptr.back()), index_type(0));
  m.values.assign(static_cast<std::size_t>(m.warp_ptr.back()), V(0));
  for (global_index_type i = 0; i < a.rows; ++i) {
    const global_index_type w = i / warp, lane = i % warp;
    const offset_type width = (m.warp_ptr[w + 1] - m.warp_ptr[w]) / warp;
    const offset_type begin = a.row_ptr[m.perm[i]];
    const index_type len = m.row_length[i];
    const index_type sentinel = len > 0 ? a.col_idx[begin + len - 1] : 0;
    for (offset_type k = 0; k < width; ++k) {
      const offset_type at = m.warp_ptr[w] + k * warp + lane;
      if (k < len) {
        m.col_idx[at] = a.col_idx[begin + k];
        m.values[at] = a.values[begin + k];
      } else {
        m.col_idx[at] = sentinel;  // value stays 0
      }
    }
  }

  m.stats.stored_bytes = m.perm.size() * sizeof(index_type) + m.row_length.size() * sizeof(index_type) +
                         m.warp_ptr.size() * sizeof(offset_type) + m.col_idx.size() * sizeof(index_type) +
                         m.values.size() * sizeof(V);
  m.stats.padding_ratio =
      m.nnz > 0 ? static_cast<double>(m.warp_ptr.back()) / static_cast<double>(m.nnz) : 1.0;
  m.stats.n_iter = m.warp_ptr.back() / warp;  // eq. 1: the sum of the warp widths
  m.stats.n_p = m.stats.n_iter * warp - m.nnz;
  m.stats.params = "sorted=global warp=32";
  return m;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const pellr_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  std::vector<global_index_type> position(static_cast<std::size_t>(m.rows));  // inverse of perm
  for (global_index_type i = 0; i < m.rows; ++i) position[m.perm[i]] = i;
  for (global_index_type r = 0; r < m.rows; ++r) {
    const global_index_type i = position[r];
    for (index_type k = 0; k < m.row_length[i]; ++k) {
      const offset_type at = m.warp_ptr[i / warp] + k * warp + i % warp;
      a.col_idx.push_back(m.col_idx[at]);
      a.values.push_back(m.values[at]);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

template pellr_matrix<float> build(const csr_matrix<float, index_type>&, const pellr_params&);
template pellr_matrix<double> build(const csr_matrix<double, index_type>&, const pellr_params&);
template csr_matrix<float, index_type> to_csr(const pellr_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const pellr_matrix<double>&);

}  // namespace distspmv::pellr
