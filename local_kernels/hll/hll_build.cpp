// Builds HLL / ELL-G from CSR on the host: optional sort within windows, hack widths, padding
// check, then the column-major fill. Deterministic; the input is only read.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

#include "local_kernels/hll/hll.hpp"

namespace distspmv::hll {
namespace {

constexpr const char* source = "hll::build";

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

void check_params(const hll_params& p) {
  if (p.hack_size < 0 || p.hack_size % 32 != 0)
    DSPMV_BAD_INPUT(source, "hack_size", std::to_string(p.hack_size) + " is not a positive multiple of 32 (or 0 for ELL-G)");
  if (p.sort_window < 0 || (p.hack_size > 0 && p.sort_window % p.hack_size != 0))
    DSPMV_BAD_INPUT(source, "sort_window",
                    std::to_string(p.sort_window) + " is not 0 or a multiple of the hack size " + std::to_string(p.hack_size));
  if (p.threads_per_row != 1 && p.threads_per_row != 2 && p.threads_per_row != 4)
    DSPMV_BAD_INPUT(source, "threads_per_row", std::to_string(p.threads_per_row) + " is not 1, 2 or 4");
  if (p.max_padding_ratio < 0) DSPMV_BAD_INPUT(source, "max_padding_ratio", "is negative");
}

}  // namespace

template <typename V>
hll_matrix<V> build(const csr_matrix<V, index_type>& a, const hll_params& params) {
  validate_csr(a, source, /*allow_nonfinite=*/true);
  check_params(params);
  if (a.rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(a.rows) + " rows exceed the 32-bit local row range");

  hll_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.params = params;
  const global_index_type rounded = (a.rows + 31) / 32 * 32;
  const global_index_type H = params.hack_size > 0 ? params.hack_size : std::max<global_index_type>(32, rounded);
  if (H > std::numeric_limits<index_type>::max()) DSPMV_BAD_INPUT(source, "rows", "too many rows for one hack");
  m.hack_size = static_cast<index_type>(H);
  const global_index_type hacks = (a.rows + H - 1) / H;

  // Stored row i holds original row order[i].
  std::vector<index_type> order(static_cast<std::size_t>(a.rows));
  std::iota(order.begin(), order.end(), index_type(0));
  if (params.sort_window > 0) {
    for (global_index_type w = 0; w < a.rows; w += params.sort_window) {
      const auto first = order.begin() + w;
      const auto last = order.begin() + std::min(a.rows, w + params.sort_window);
      std::stable_sort(first, last, [&](index_type r, index_type s) { return a.row_length(r) > a.row_length(s); });
    }
    m.row_idx = order;
  }
  m.row_length.resize(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) m.row_length[i] = static_cast<index_type>(a.row_length(order[i]));

  // Hack widths, and the padding check before anything large is allocated.
  // Rows past the end of the matrix (the last hack's tail) do not count towards the limit, so
  // that a small matrix is not refused for them.
  m.hack_offsets.assign(static_cast<std::size_t>(hacks) + 1, 0);
  offset_type in_rows = 0;
  for (global_index_type h = 0; h < hacks; ++h) {
    index_type width = 0;
    const global_index_type end = std::min(a.rows, (h + 1) * H);
    for (global_index_type i = h * H; i < end; ++i) width = std::max(width, m.row_length[i]);
    m.hack_offsets[h + 1] = m.hack_offsets[h] + H * width;
    in_rows += (end - h * H) * width;
  }
  const offset_type stored = m.hack_offsets.back();
  if (params.max_padding_ratio > 0 && m.nnz > 0 &&
      static_cast<double>(in_rows) > params.max_padding_ratio * static_cast<double>(m.nnz))
    DSPMV_BAD_INPUT(source, "padding",
                    "hack size " + std::to_string(H) + " would store " + std::to_string(in_rows) + " entries for " +
                        std::to_string(m.nnz) + " nonzeros (" + ratio_text(static_cast<double>(in_rows) / static_cast<double>(m.nnz)) +
                        "x, limit " + ratio_text(params.max_padding_ratio) + "x); the rows are too uneven for one width");

  m.col_idx.assign(static_cast<std::size_t>(stored), padding_column);
  m.values.assign(static_cast<std::size_t>(stored), V(0));
  for (global_index_type i = 0; i < a.rows; ++i) {
    const global_index_type h = i / H;
    const offset_type base = m.hack_offsets[h] + (i - h * H);
    const offset_type src = a.row_ptr[order[i]];
    for (index_type j = 0; j < m.row_length[i]; ++j) {
      m.col_idx[base + j * H] = a.col_idx[src + j];
      m.values[base + j * H] = a.values[src + j];
    }
  }

  m.stats.stored_bytes = m.hack_offsets.size() * sizeof(offset_type) + m.row_length.size() * sizeof(index_type) +
                         m.col_idx.size() * sizeof(index_type) + m.values.size() * sizeof(V) +
                         m.row_idx.size() * sizeof(index_type);
  m.stats.padding_ratio = m.nnz > 0 ? static_cast<double>(stored) / static_cast<double>(m.nnz) : 1.0;
  // N_iter (seed 000 eq. 1) in stored order: one thread per row, a warp runs to its longest row.
  for (global_index_type w = 0; w < a.rows; w += 32) {
    index_type longest = 0;
    for (global_index_type i = w; i < std::min<global_index_type>(w + 32, a.rows); ++i)
      longest = std::max(longest, m.row_length[i]);
    m.stats.n_iter += longest;
  }
  m.stats.n_p = m.stats.n_iter * 32 - m.nnz;
  m.stats.params = (params.hack_size > 0 ? "H=" + std::to_string(H) : "one hack H=" + std::to_string(H)) +
                   " sort_window=" + std::to_string(params.sort_window) +
                   " T=" + std::to_string(params.threads_per_row);
  return m;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const hll_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  const global_index_type H = m.hack_size;
  auto original = [&](global_index_type i) { return m.row_idx.empty() ? i : static_cast<global_index_type>(m.row_idx[i]); };
  a.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
  for (global_index_type i = 0; i < m.rows; ++i) a.row_ptr[original(i) + 1] = m.row_length[i];
  for (global_index_type r = 0; r < m.rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  a.col_idx.resize(static_cast<std::size_t>(a.row_ptr.back()));
  a.values.resize(static_cast<std::size_t>(a.row_ptr.back()));
  for (global_index_type i = 0; i < m.rows; ++i) {
    const global_index_type h = i / H;
    const offset_type base = m.hack_offsets[h] + (i - h * H);
    const offset_type dst = a.row_ptr[original(i)];
    for (index_type j = 0; j < m.row_length[i]; ++j) {
      a.col_idx[dst + j] = m.col_idx[base + j * H];
      a.values[dst + j] = m.values[base + j * H];
    }
  }
  return a;
}

template hll_matrix<float> build(const csr_matrix<float, index_type>&, const hll_params&);
template hll_matrix<double> build(const csr_matrix<double, index_type>&, const hll_params&);
template csr_matrix<float, index_type> to_csr(const hll_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const hll_matrix<double>&);

}  // namespace distspmv::hll
