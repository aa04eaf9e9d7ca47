// COO -> CSR: counting sort on rows, then a per-row sort of columns, then duplicate summing.
//
// A global std::sort of triplets costs O(nnz log nnz) with random access over three arrays;
// the counting sort is two linear passes, and files are almost always stored row- or
// column-major, which makes every row come out of the (stable) scatter already sorted, so the
// per-row sort is usually only a check.
#include "io/coo.hpp"

#include "io/detail/matrix_market_parse.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace distspmv::io {
namespace {

/// Rows up to this length are sorted by insertion sort in place (no allocation, stable).
constexpr offset_type insertion_sort_limit = 32;

/// Sorts columns [begin, end) of one row together with their values, stably (duplicates are
/// then summed in file order, so the result does not depend on the sort's tie-breaking).
void sort_row(global_index_type* col, double* val, offset_type n,
              std::vector<std::pair<global_index_type, double>>& scratch) {
  if (n <= insertion_sort_limit) {
    for (offset_type k = 1; k < n; ++k) {
      const global_index_type c = col[k];
      const double v = val[k];
      offset_type m = k;
      while (m > 0 && col[m - 1] > c) {
        col[m] = col[m - 1];
        val[m] = val[m - 1];
        --m;
      }
      col[m] = c;
      val[m] = v;
    }
    return;
  }
  scratch.resize(static_cast<std::size_t>(n));
  for (offset_type k = 0; k < n; ++k) scratch[k] = {col[k], val[k]};
  std::stable_sort(scratch.begin(), scratch.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (offset_type k = 0; k < n; ++k) {
    col[k] = scratch[k].first;
    val[k] = scratch[k].second;
  }
}

}  // namespace

csr_matrix<double> coo_to_csr(coo_matrix&& coo) {
  const std::size_t n = coo.row.size();
  DSPMV_REQUIRE(coo.col.size() == n && coo.val.size() == n,
                "coo_to_csr: row, col and val have different lengths (" + std::to_string(n) + ", " +
                    std::to_string(coo.col.size()) + ", " + std::to_string(coo.val.size()) + ")");
  DSPMV_REQUIRE(coo.rows >= 0 && coo.cols >= 0, "coo_to_csr: negative shape " + std::to_string(coo.rows) +
                                                    " x " + std::to_string(coo.cols));
  // Take the arrays so that each is freed as soon as it is no longer needed.
  std::vector<global_index_type> row = std::move(coo.row);
  std::vector<global_index_type> col = std::move(coo.col);
  std::vector<double> val = std::move(coo.val);

  csr_matrix<double> a;
  a.rows = coo.rows;
  a.cols = coo.cols;
  a.row_ptr.reserve(static_cast<std::size_t>(a.rows) + 1);
  detail::advise_huge_pages(a.row_ptr);
  a.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  offset_type* ptr = a.row_ptr.data();

  // Count entries per row into ptr[r + 1]; checking the range here costs one compare per entry
  // and turns a reader's bug into an error instead of a heap overwrite.
  const auto rows_u = static_cast<std::uint64_t>(a.rows);
  const auto cols_u = static_cast<std::uint64_t>(a.cols);
  for (std::size_t k = 0; k < n; ++k) {
    const auto r = static_cast<std::uint64_t>(row[k]);
    const auto c = static_cast<std::uint64_t>(col[k]);
    DSPMV_REQUIRE(r < rows_u && c < cols_u, "coo_to_csr: entry " + std::to_string(k) + " at (" +
                                                std::to_string(row[k]) + ", " + std::to_string(col[k]) +
                                                ") outside " + std::to_string(a.rows) + " x " +
                                                std::to_string(a.cols));
    ++ptr[r + 1];
  }
  for (global_index_type r = 0; r < a.rows; ++r) ptr[r + 1] += ptr[r];

  // Stable scatter: ptr[r] walks from the start of row r to the start of row r + 1.
  a.col_idx.reserve(n);
  a.values.reserve(n);
  detail::advise_huge_pages(a.col_idx);
  detail::advise_huge_pages(a.values);
  a.col_idx.resize(n);
  a.values.resize(n);
  global_index_type* out_col = a.col_idx.data();
  double* out_val = a.values.data();
  for (std::size_t k = 0; k < n; ++k) {
    const offset_type dst = ptr[row[k]]++;
    out_col[dst] = col[k];
    out_val[dst] = val[k];
  }
  if (a.rows > 0) std::memmove(ptr + 1, ptr, sizeof(offset_type) * static_cast<std::size_t>(a.rows));
  ptr[0] = 0;
  std::vector<global_index_type>().swap(row);
  std::vector<global_index_type>().swap(col);
  std::vector<double>().swap(val);

  // Sort the rows that need it and note whether any row has duplicate columns.
  std::vector<std::pair<global_index_type, double>> scratch;
  bool duplicates = false;
  for (global_index_type r = 0; r < a.rows; ++r) {
    const offset_type begin = ptr[r], end = ptr[r + 1];
    bool sorted = true;
    for (offset_type k = begin + 1; k < end; ++k) {
      if (out_col[k] <= out_col[k - 1]) {
        if (out_col[k] == out_col[k - 1]) {
          duplicates = true;
        } else {
          sorted = false;
          break;
        }
      }
    }
    if (!sorted) {
      sort_row(out_col + begin, out_val + begin, end - begin, scratch);
      for (offset_type k = begin + 1; k < end && !duplicates; ++k)
        duplicates = out_col[k] == out_col[k - 1];
    }
  }

  // Sum duplicates by compacting in place; row r's new start never exceeds its old start.
  if (duplicates) {
    offset_type w = 0;
    offset_type old_begin = 0;
    for (global_index_type r = 0; r < a.rows; ++r) {
      const offset_type old_end = ptr[r + 1];
      const offset_type row_start = w;
      for (offset_type k = old_begin; k < old_end; ++k) {
        if (w > row_start && out_col[w - 1] == out_col[k]) {
          out_val[w - 1] += out_val[k];
        } else {
          out_col[w] = out_col[k];
          out_val[w] = out_val[k];
          ++w;
        }
      }
      ptr[r + 1] = w;
      old_begin = old_end;
    }
    a.col_idx.resize(static_cast<std::size_t>(w));
    a.values.resize(static_cast<std::size_t>(w));
    // Give memory back only when it is worth a copy.
    if (static_cast<std::size_t>(w) < n - n / 4) {
      a.col_idx.shrink_to_fit();
      a.values.shrink_to_fit();
    }
  }
  return a;
}

}  // namespace distspmv::io
