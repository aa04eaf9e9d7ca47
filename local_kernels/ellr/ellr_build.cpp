// Builds ELLR-T from CSR: T, the width K (with the overflow tail when the padding would be
// excessive), the stripe layout with sentinel padding, 16-bit column offsets where every ELL
// entry's fits, and the statistics.
#include <algorithm>
#include <cstdint>
#include <string>

#include "local_kernels/ellr/ellr.hpp"

namespace distspmv::ellr {
namespace {

constexpr global_index_type warp = 32;

offset_type round_up(offset_type n, offset_type m) { return (n + m - 1) / m * m; }

/// HYB width (Bell & Garland): the largest k such that at least a third of the rows (at least
/// one) have k or more entries, rounded up to a multiple of T (at most T - 1 more padding per
/// row; rounding down could leave K = 0 and every row in the tail).
index_type hyb_width(const std::vector<offset_type>& lengths, int t) {
  std::vector<offset_type> sorted = lengths;
  std::sort(sorted.begin(), sorted.end(), [](offset_type x, offset_type y) { return x > y; });
  const std::size_t need = std::max<std::size_t>(1, sorted.size() / 3);
  const offset_type k = sorted.empty() ? 0 : sorted[need - 1];  // need rows have >= k entries
  return static_cast<index_type>(round_up(k, t));
}

/// Slot `at` of the stripe layout: its row and its entry within the row.
struct slot {
  global_index_type row;
  offset_type entry;
};
slot slot_of(offset_type at, offset_type stripe, int t) {
  return {(at % stripe) / t, (at / stripe) * t + at % t};
}

/// Whether every ELL entry lies within a 16-bit offset of its row: the first and last ELL
/// column of each row (columns ascend within a row).
template <typename V>
bool offsets_fit(const ellr_matrix<V>& m) {
  const int t = m.threads_per_row;
  const offset_type stripe = m.rows_padded * t;
  for (global_index_type r = 0; r < m.rows; ++r) {
    const index_type len = m.row_length[r];
    if (len == 0) continue;
    const offset_type first = m.col_idx[r * t], last = m.col_idx[((len - 1) / t) * stripe + r * t + (len - 1) % t];
    if (first - r < min_column_offset || last - r > max_column_offset) return false;
  }
  return true;
}

/// The ELL part's columns as col - row (padding 0); col_idx freed.
template <typename V>
void to_column_offsets(ellr_matrix<V>& m) {
  const int t = m.threads_per_row;
  const offset_type stripe = m.rows_padded * t;
  m.col_offset.assign(m.col_idx.size(), 0);
  for (offset_type at = 0; at < static_cast<offset_type>(m.col_idx.size()); ++at) {
    const slot s = slot_of(at, stripe, t);
    if (s.row < m.rows && s.entry < m.row_length[s.row])
      m.col_offset[at] = static_cast<std::int16_t>(m.col_idx[at] - s.row);
  }
  std::vector<index_type>().swap(m.col_idx);
}

}  // namespace

int threads_per_row_for(double mean_row_length, double ell_padding, global_index_type rows,
                        offset_type max_row_length) {
  int t = 1;
  while (t < 8 && mean_row_length >= 12.0 * t) t *= 2;
  if (t >= 2 && t < 8 && ell_padding >= 2.0) t *= 2;
  while (t < 8 && (max_row_length + t - 1) / t > trip_stripes && rows * 2 * t <= one_wave_threads) t *= 2;
  return t;
}

template <typename V>
ellr_matrix<V> build(const csr_matrix<V, index_type>& a, const ellr_params& params) {
  validate_csr(a, "ellr::build", /*allow_nonfinite=*/true);
  std::vector<offset_type> lengths(static_cast<std::size_t>(a.rows));
  offset_type max_len = 0;
  for (global_index_type r = 0; r < a.rows; ++r) {
    lengths[r] = a.row_length(r);
    max_len = std::max(max_len, lengths[r]);
  }
  const double rows = static_cast<double>(a.rows), nnz = static_cast<double>(a.nnz());
  const int t = params.threads_per_row > 0
                    ? params.threads_per_row
                    : threads_per_row_for(a.rows > 0 ? nnz / rows : 0.0, nnz > 0 ? rows * max_len / nnz : 1.0,
                                          a.rows, max_len);
  if (t != 1 && t != 2 && t != 4 && t != 8)
    DSPMV_BAD_INPUT("ellr::build", "threads_per_row", std::to_string(t) + " is not one of 1, 2, 4, 8");

  ellr_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.params = params;
  m.threads_per_row = t;
  m.rows_padded = round_up(a.rows, warp);
  // Plain ELL unless its padding is both relatively and absolutely large.
  const offset_type full_width = round_up(max_len, t);
  const double full_entries = static_cast<double>(m.rows_padded) * static_cast<double>(full_width);
  const bool use_tail = params.overflow_padding_ratio > 0 &&
                        full_entries > params.overflow_padding_ratio * static_cast<double>(m.nnz) &&
                        full_entries > static_cast<double>(params.overflow_min_entries);
  m.width = use_tail ? hyb_width(lengths, t) : static_cast<index_type>(full_width);

  const offset_type stripe = m.rows_padded * t;
  const offset_type entries = m.width / t * stripe;
  m.values.assign(static_cast<std::size_t>(entries), V(0));
  m.col_idx.assign(static_cast<std::size_t>(entries), index_type(0));
  m.row_length.resize(static_cast<std::size_t>(a.rows));
  for (global_index_type r = 0; r < a.rows; ++r) {
    const offset_type begin = a.row_ptr[r];
    const index_type len = static_cast<index_type>(std::min<offset_type>(lengths[r], m.width));
    m.row_length[r] = len;
    const index_type sentinel = len > 0 ? a.col_idx[begin + len - 1] : 0;
    for (index_type k = 0; k < m.width; ++k) {
      const offset_type at = (k / t) * stripe + r * t + k % t;
      if (k < len) {
        m.col_idx[at] = a.col_idx[begin + k];
        m.values[at] = a.values[begin + k];
      } else {
        m.col_idx[at] = sentinel;  // value stays 0
      }
    }
    if (lengths[r] > m.width) {
      m.tail_rows.push_back(static_cast<index_type>(r));
      for (offset_type k = begin + m.width; k < a.row_ptr[r + 1]; ++k) {
        m.tail_col_idx.push_back(a.col_idx[k]);
        m.tail_values.push_back(a.values[k]);
      }
      m.tail_ptr.push_back(static_cast<offset_type>(m.tail_col_idx.size()));
    }
  }

  if (params.column_offsets && offsets_fit(m)) to_column_offsets(m);

  // Statistics (see ellr.hpp).
  const offset_type tail_nnz = m.tail_ptr.back();
  m.stats.stored_bytes = m.values.size() * sizeof(V) + m.col_idx.size() * sizeof(index_type) +
                         m.col_offset.size() * sizeof(std::int16_t) +
                         m.row_length.size() * sizeof(index_type) + m.tail_rows.size() * sizeof(index_type) +
                         m.tail_ptr.size() * sizeof(offset_type) + m.tail_col_idx.size() * sizeof(index_type) +
                         m.tail_values.size() * sizeof(V);
  m.stats.padding_ratio =
      m.nnz > 0 ? static_cast<double>(entries + tail_nnz) / static_cast<double>(m.nnz) : 1.0;
  const global_index_type rows_per_warp = warp / t;
  for (global_index_type w = 0; w < a.rows; w += rows_per_warp) {
    offset_type longest = 0;
    for (global_index_type r = w; r < std::min(w + rows_per_warp, a.rows); ++r)
      longest = std::max<offset_type>(longest, (m.row_length[r] + t - 1) / t);
    m.stats.n_iter += longest;
  }
  for (std::size_t i = 0; i + 1 < m.tail_ptr.size(); ++i)
    m.stats.n_iter += (m.tail_ptr[i + 1] - m.tail_ptr[i] + warp - 1) / warp;
  m.stats.n_p = m.stats.n_iter * warp - m.nnz;
  m.stats.params = "T=" + std::to_string(t) + " K=" + std::to_string(m.width) +
                   (params.threads_per_row > 0 ? "" : " (T from mean row length and padding)");
  if (!m.col_offset.empty()) m.stats.params += " col16";
  if (!m.tail_rows.empty())
    m.stats.params += " tail_rows=" + std::to_string(m.tail_rows.size()) + " tail_nnz=" + std::to_string(tail_nnz);
  return m;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const ellr_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  const int t = m.threads_per_row;
  const offset_type stripe = m.rows_padded * t;
  std::size_t tail = 0;
  for (global_index_type r = 0; r < m.rows; ++r) {
    for (index_type k = 0; k < m.row_length[r]; ++k) {
      const offset_type at = (k / t) * stripe + r * t + k % t;
      a.col_idx.push_back(m.col_offset.empty() ? m.col_idx[at] : static_cast<index_type>(r + m.col_offset[at]));
      a.values.push_back(m.values[at]);
    }
    if (tail < m.tail_rows.size() && m.tail_rows[tail] == r) {
      for (offset_type k = m.tail_ptr[tail]; k < m.tail_ptr[tail + 1]; ++k) {
        a.col_idx.push_back(m.tail_col_idx[k]);
        a.values.push_back(m.tail_values[k]);
      }
      ++tail;
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

template ellr_matrix<float> build(const csr_matrix<float, index_type>&, const ellr_params&);
template ellr_matrix<double> build(const csr_matrix<double, index_type>&, const ellr_params&);
template csr_matrix<float, index_type> to_csr(const ellr_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const ellr_matrix<double>&);

}  // namespace distspmv::ellr
