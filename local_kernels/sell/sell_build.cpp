// Builds SELL-C-sigma from CSR: the sigma choice, the window sort, the slices with sentinel
// padding, 16-bit column offsets where every slot's fits, and the statistics.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

#include "local_kernels/sell/sell.hpp"

namespace distspmv::sell {
namespace {

/// Window the automatic choice tries (rounded up to a multiple of C); the selector's
/// SELL-32-256 statistic uses the same.
constexpr int auto_sigma = 256;

/// Positions -> original rows after a stable longest-first sort inside windows of sigma rows.
std::vector<index_type> window_order(const std::vector<offset_type>& lengths, global_index_type sigma) {
  const auto rows = static_cast<global_index_type>(lengths.size());
  std::vector<index_type> perm(lengths.size());
  std::iota(perm.begin(), perm.end(), index_type(0));
  if (sigma <= 1) return perm;
  for (global_index_type w = 0; w < rows; w += sigma)
    std::stable_sort(perm.begin() + w, perm.begin() + std::min(w + sigma, rows),
                     [&lengths](index_type x, index_type y) { return lengths[x] > lengths[y]; });
  return perm;
}

/// Stored entries (padding included) of slices of c rows taken in `order`.
offset_type stored_entries(const std::vector<offset_type>& lengths, const std::vector<index_type>& order,
                           global_index_type c) {
  offset_type total = 0;
  for (std::size_t s = 0; s < order.size(); s += static_cast<std::size_t>(c)) {
    offset_type width = 0;
    for (std::size_t i = s; i < std::min(order.size(), s + static_cast<std::size_t>(c)); ++i)
      width = std::max(width, lengths[order[i]]);
    total += width * c;
  }
  return total;
}

/// The padding column of an empty row r, or of a position r past the rows: next to r's own index.
index_type empty_sentinel(global_index_type r, global_index_type cols) {
  return static_cast<index_type>(cols > 0 ? std::min(r, cols - 1) : 0);
}

/// col - i for every slot of sorted position i where all fit an int16; col_idx freed. Otherwise
/// nothing changes.
template <typename V>
void to_column_offsets(sell_matrix<V>& m) {
  const global_index_type c = m.slice_size, slices = static_cast<global_index_type>(m.slice_ptr.size()) - 1;
  std::vector<std::int16_t> offsets(m.col_idx.size());
  for (global_index_type i = 0; i < slices * c; ++i) {
    const global_index_type s = i / c;
    for (offset_type at = m.slice_ptr[s] + i % c; at < m.slice_ptr[s + 1]; at += c) {
      const offset_type off = m.col_idx[at] - i;
      if (off < min_column_offset || off > max_column_offset) return;
      offsets[at] = static_cast<std::int16_t>(off);
    }
  }
  m.col_offset = std::move(offsets);
  std::vector<index_type>().swap(m.col_idx);
}

/// Each block's window [min, max + 1) over the columns of its slots (window_rows positions) and
/// of its spill.
template <typename V>
void compute_windows(sell_matrix<V>& m) {
  const global_index_type c = m.slice_size, slices = static_cast<global_index_type>(m.slice_ptr.size()) - 1;
  const global_index_type per_block = window_rows / c, blocks = (slices + per_block - 1) / per_block;
  m.window_begin.assign(static_cast<std::size_t>(blocks), 0);
  m.window_end.assign(static_cast<std::size_t>(blocks), 0);
  for (global_index_type b = 0; b < blocks; ++b) {
    const offset_type first = m.slice_ptr[b * per_block], last = m.slice_ptr[std::min(slices, (b + 1) * per_block)];
    index_type lo = std::numeric_limits<index_type>::max(), hi = -1;
    for (offset_type at = first; at < last; ++at) {
      lo = std::min(lo, m.col_idx[at]);
      hi = std::max(hi, m.col_idx[at]);
    }
    if (!m.spill_ptr.empty())  // (a top slice of width 0 spills all its rows)
      for (offset_type k = m.spill_ptr[32 * b]; k < m.spill_ptr[32 * b + 32]; ++k) {
        lo = std::min(lo, m.spill_col[k]);
        hi = std::max(hi, m.spill_col[k]);
      }
    if (hi < 0) continue;  // no slots, no spill: an empty window
    m.window_begin[b] = lo;
    m.window_end[b] = hi + 1;
  }
  m.window_capacity = detail::window_capacity(m.window_begin, m.window_end, sizeof(V));
}

}  // namespace

namespace detail {

void check_params(global_index_type rows, const sell_params& params, const char* source) {
  const int c = params.slice_size;
  const int r = params.rows_per_thread;
  if (c < 32 || c % 32 != 0)
    DSPMV_BAD_INPUT(source, "slice_size", "C = " + std::to_string(c) + " is not a positive multiple of 32");
  if (r != 1 && r != 2) DSPMV_BAD_INPUT(source, "rows_per_thread", "R = " + std::to_string(r) + " is not 1 or 2");
  if (c % (32 * r) != 0)
    DSPMV_BAD_INPUT(source, "slice_size",
                    "C = " + std::to_string(c) + " is not a multiple of 32 * R = " + std::to_string(32 * r));
  if (params.x_windows && (c != 32 || r != 1 || (params.sigma > 1 && window_rows % params.sigma != 0)))
    DSPMV_BAD_INPUT(source, "x_windows",
                    "needs C = 32, R = 1 and sigma 0, 1 or a divisor of " + std::to_string(window_rows) + " (C = " +
                        std::to_string(c) + ", R = " + std::to_string(r) + ", sigma = " +
                        std::to_string(params.sigma) + ")");
  if (params.spill_row_bytes < 0)
    DSPMV_BAD_INPUT(source, "spill_row_bytes", std::to_string(params.spill_row_bytes) + " is negative");
  if (params.sigma < 0 || (params.sigma > 1 && params.sigma % c != 0))
    DSPMV_BAD_INPUT(source, "sigma",
                    "sigma = " + std::to_string(params.sigma) + " is not 0 (choose), 1 or a multiple of C = " +
                        std::to_string(c));
  if (rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(rows) + " rows do not fit the 32-bit permutation");
}

bool spills(const sell_params& params, int sigma) {
  return params.top_spill && params.x_windows && sigma == window_rows;
}

offset_type spill_cap(const offset_type (&len)[32], std::size_t slot_bytes, std::size_t spill_bytes,
                      std::size_t row_bytes) {
  // The bytes are piecewise linear in the width, with kinks at the rows' lengths: the best width is one of them.
  offset_type best = len[0], best_bytes = -1;
  for (int l = 0; l < 32; ++l) {
    offset_type bytes = 32 * len[l] * static_cast<offset_type>(slot_bytes);
    for (int k = 0; k < l; ++k)
      if (len[k] > len[l])
        bytes += (len[k] - len[l]) * static_cast<offset_type>(spill_bytes) + static_cast<offset_type>(row_bytes);
    if (best_bytes < 0 || bytes < best_bytes) {
      best = len[l];
      best_bytes = bytes;
    }
  }
  return best;
}

int auto_sorted_sigma(int slice_size) { return (auto_sigma + slice_size - 1) / slice_size * slice_size; }

int fixed_sigma(const sell_params& params) {
  // x windows sort the whole block: the least padding, and a row never leaves its window.
  return params.x_windows && params.sigma == 0 ? window_rows : params.sigma;
}

int window_capacity(const std::vector<index_type>& begin, const std::vector<index_type>& end,
                    std::size_t value_bytes) {
  const auto limit = static_cast<index_type>(window_max_bytes / value_bytes);
  index_type widest = 0;
  for (std::size_t b = 0; b < begin.size(); ++b)
    if (end[b] - begin[b] <= limit) widest = std::max(widest, end[b] - begin[b]);
  return widest;
}

bool sorting_pays(offset_type unsorted_slots, offset_type sorted_slots, global_index_type rows,
                  std::size_t value_bytes, std::string& why) {
  // Sort only when the padding it removes outweighs the permutation it adds (bytes per SpMV).
  const double saved =
      static_cast<double>(unsorted_slots - sorted_slots) * static_cast<double>(value_bytes + sizeof(index_type));
  const double cost = static_cast<double>(rows) * sizeof(index_type);
  why = " (auto: sorting saves " + std::to_string(static_cast<long long>(saved)) + " B, perm costs " +
        std::to_string(static_cast<long long>(cost)) + " B)";
  return saved > cost;
}

format_stats sell_stats(global_index_type rows, offset_type nnz, offset_type slots, bool permuted,
                        const sell_params& params, int sigma, const std::string& why, std::size_t value_bytes,
                        std::size_t column_bytes, int window_capacity, offset_type spilled) {
  const global_index_type c = params.slice_size;
  const global_index_type slices = (rows + c - 1) / c;
  const global_index_type blocks = (rows + window_rows - 1) / window_rows;
  format_stats stats;
  stats.stored_bytes = static_cast<std::size_t>(slices + 1) * sizeof(offset_type) +
                       static_cast<std::size_t>(slots) * (column_bytes + value_bytes) +
                       static_cast<std::size_t>(permuted ? rows : 0) * sizeof(index_type) +
                       (window_capacity < 0 ? 0 : 2 * sizeof(index_type) * blocks) +
                       (spilled == 0 ? 0
                                     : static_cast<std::size_t>(32 * blocks + 1) * sizeof(offset_type) +
                                           static_cast<std::size_t>(spilled) * (sizeof(index_type) + value_bytes));
  // Stored entries per nonzero: padded slots and spilled entries.
  stats.padding_ratio = nnz > 0 ? static_cast<double>(slots + spilled) / static_cast<double>(nnz) : 1.0;
  stats.n_iter = slots / 32;  // sum of width * C / 32
  stats.n_p = stats.n_iter * 32 - (nnz - spilled);  // the padding slots
  stats.params = "C=" + std::to_string(c) + " sigma=" + std::to_string(sigma) +
                 " R=" + std::to_string(params.rows_per_thread) + (permuted ? "" : " perm=none") +
                 (column_bytes < sizeof(index_type) ? " col16" : "") +
                 (window_capacity < 0 ? "" : " x-window=" + std::to_string(window_capacity)) +
                 (spilled == 0 ? "" : " spill=" + std::to_string(spilled)) + why;
  return stats;
}

}  // namespace detail

template <typename V>
sell_matrix<V> build(const csr_matrix<V, index_type>& a, const sell_params& params) {
  // Parameters first, then the matrix: build_cuda can check its columns only once the
  // parameters have shaped the slices, and both builders refuse in the same order.
  detail::check_params(a.rows, params, "sell::build");
  validate_csr(a, "sell::build", /*allow_nonfinite=*/true);
  const int c = params.slice_size;
  const int r = params.rows_per_thread;

  sell_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.slice_size = c;
  m.rows_per_thread = r;
  m.params = params;

  std::vector<offset_type> lengths(static_cast<std::size_t>(a.rows));
  for (global_index_type i = 0; i < a.rows; ++i) lengths[i] = a.row_length(i);

  std::vector<index_type> order;
  std::string why;
  if (detail::fixed_sigma(params) > 0) {
    m.sigma = detail::fixed_sigma(params);
    order = window_order(lengths, m.sigma);
  } else {
    const int sorted_sigma = detail::auto_sorted_sigma(c);
    auto unsorted = window_order(lengths, 1);
    auto sorted = window_order(lengths, sorted_sigma);
    const bool sort = detail::sorting_pays(stored_entries(lengths, unsorted, c), stored_entries(lengths, sorted, c),
                                           a.rows, sizeof(V), why);
    m.sigma = sort ? sorted_sigma : 1;
    order = sort ? std::move(sorted) : std::move(unsorted);
  }
  bool identity = true;
  for (global_index_type i = 0; i < a.rows && identity; ++i) identity = order[i] == i;
  if (!identity) m.perm = order;

  const global_index_type slices = (a.rows + c - 1) / c;
  m.slice_ptr.resize(static_cast<std::size_t>(slices) + 1);
  m.row_length.resize(static_cast<std::size_t>(a.rows));
  for (global_index_type i = 0; i < a.rows; ++i) m.row_length[i] = static_cast<index_type>(lengths[order[i]]);
  const bool spill = detail::spills(params, m.sigma);
  auto position_length = [&](global_index_type i) { return i < a.rows ? offset_type{m.row_length[i]} : 0; };
  for (global_index_type s = 0; s < slices; ++s) {
    offset_type width = 0;
    for (global_index_type i = s * c; i < std::min<global_index_type>((s + 1) * c, a.rows); ++i)
      width = std::max<offset_type>(width, m.row_length[i]);
    if (spill && s % (window_rows / 32) == 0) {  // a block's top slice (C = 32)
      offset_type len[32];
      for (int l = 0; l < 32; ++l) len[l] = position_length(s * 32 + l);
      width = detail::spill_cap(len, sizeof(V) + (params.column_offsets ? 2 : 4), sizeof(V) + sizeof(index_type),
                                static_cast<std::size_t>(params.spill_row_bytes));
    }
    m.slice_ptr[s + 1] = m.slice_ptr[s] + width * c;
  }
  if (spill) {  // each top-slice position's entries past its slice's width
    const global_index_type blocks = (slices + window_rows / 32 - 1) / (window_rows / 32);
    m.spill_ptr.assign(static_cast<std::size_t>(32 * blocks + 1), 0);
    for (global_index_type b = 0; b < blocks; ++b) {
      const global_index_type s = b * (window_rows / 32);
      const offset_type width = (m.slice_ptr[s + 1] - m.slice_ptr[s]) / 32;
      for (int l = 0; l < 32; ++l) {
        const global_index_type i = s * 32 + l;
        const offset_type excess = std::max<offset_type>(position_length(i) - width, 0);
        for (offset_type j = width; j < width + excess; ++j) {
          m.spill_col.push_back(a.col_idx[a.row_ptr[order[i]] + j]);
          m.spill_val.push_back(a.values[a.row_ptr[order[i]] + j]);
        }
        m.spill_ptr[32 * b + l + 1] = static_cast<offset_type>(m.spill_col.size());
      }
    }
    if (m.spill_col.empty()) m.spill_ptr.clear();  // nothing spilled: no spill arrays
  }
  m.col_idx.assign(static_cast<std::size_t>(m.slice_ptr.back()), index_type(0));
  m.values.assign(static_cast<std::size_t>(m.slice_ptr.back()), V(0));
  for (global_index_type i = 0; i < a.rows; ++i) {
    const global_index_type s = i / c, l = i % c;
    const offset_type width = (m.slice_ptr[s + 1] - m.slice_ptr[s]) / c;
    const offset_type begin = a.row_ptr[order[i]];
    const index_type len = m.row_length[i];
    const index_type sentinel = len > 0 ? a.col_idx[begin + len - 1] : empty_sentinel(order[i], a.cols);
    for (offset_type j = 0; j < width; ++j) {  // (a spilled row fills its slice: no sentinel)
      const offset_type at = m.slice_ptr[s] + j * c + l;
      if (j < len) {
        m.col_idx[at] = a.col_idx[begin + j];
        m.values[at] = a.values[begin + j];
      } else {
        m.col_idx[at] = sentinel;  // value stays 0
      }
    }
  }

  // Positions past the rows (the last slice) hold padding only.
  for (global_index_type i = a.rows; i < slices * c; ++i) {
    const global_index_type s = i / c;
    for (offset_type at = m.slice_ptr[s] + i % c; at < m.slice_ptr[s + 1]; at += c)
      m.col_idx[at] = empty_sentinel(i, a.cols);
  }
  if (params.x_windows) compute_windows(m);
  if (params.column_offsets) to_column_offsets(m);

  m.stats = detail::sell_stats(m.rows, m.nnz, m.slice_ptr.back(), !m.perm.empty(), params, m.sigma, why, sizeof(V),
                               m.col_offset.empty() ? sizeof(index_type) : sizeof(std::int16_t),
                               params.x_windows ? m.window_capacity : -1,
                               static_cast<offset_type>(m.spill_col.size()));
  return m;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const sell_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  const global_index_type c = m.slice_size;
  std::vector<global_index_type> position(static_cast<std::size_t>(m.rows));  // inverse of perm
  for (global_index_type i = 0; i < m.rows; ++i) position[m.perm.empty() ? i : m.perm[i]] = i;
  for (global_index_type r = 0; r < m.rows; ++r) {
    const global_index_type i = position[r];
    const offset_type width = (m.slice_ptr[i / c + 1] - m.slice_ptr[i / c]) / c;
    for (offset_type j = 0; j < std::min<offset_type>(m.row_length[i], width); ++j) {
      const offset_type at = m.slice_ptr[i / c] + j * c + i % c;
      a.col_idx.push_back(m.col_offset.empty() ? m.col_idx[at] : static_cast<index_type>(i + m.col_offset[at]));
      a.values.push_back(m.values[at]);
    }
    if (!m.spill_ptr.empty() && i % window_rows < 32) {  // the rest of a top-slice row: its spill
      const global_index_type p = i / window_rows * 32 + i % 32;
      for (offset_type k = m.spill_ptr[p]; k < m.spill_ptr[p + 1]; ++k) {
        a.col_idx.push_back(m.spill_col[k]);
        a.values.push_back(m.spill_val[k]);
      }
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

template sell_matrix<float> build(const csr_matrix<float, index_type>&, const sell_params&);
template sell_matrix<double> build(const csr_matrix<double, index_type>&, const sell_params&);
template csr_matrix<float, index_type> to_csr(const sell_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const sell_matrix<double>&);

}  // namespace distspmv::sell
