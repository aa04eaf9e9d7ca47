// The checks shared by the HDF5 and PETSc binary readers (io/detail/csr_rows.hpp).
#include "io/detail/csr_rows.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/errors.hpp"

namespace distspmv::io::detail {

using std::to_string;

bool rows_canonical(const csr_matrix<double>& a) {
  for (global_index_type r = 0; r < a.rows; ++r)
    for (offset_type k = a.row_ptr[r] + 1; k < a.row_ptr[r + 1]; ++k)
      if (a.col_idx[k] <= a.col_idx[k - 1]) return false;
  return true;
}

void sort_and_sum_rows(csr_matrix<double>& a) {
  std::vector<std::pair<global_index_type, double>> row;
  offset_type out = 0;
  for (global_index_type r = 0; r < a.rows; ++r) {
    const offset_type begin = a.row_ptr[r], end = a.row_ptr[r + 1];
    row.clear();
    for (offset_type k = begin; k < end; ++k) row.emplace_back(a.col_idx[k], a.values[k]);
    std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    a.row_ptr[r] = out;
    for (const auto& [c, v] : row) {
      if (out > a.row_ptr[r] && a.col_idx[out - 1] == c) {
        a.values[out - 1] += v;
      } else {
        a.col_idx[out] = c;
        a.values[out] = v;
        ++out;
      }
    }
  }
  a.row_ptr[a.rows] = out;
  a.col_idx.resize(out);
  a.values.resize(out);
}

bool check_csr_entries(const csr_matrix<double>& a, global_index_type first_row, bool allow_nonfinite,
                       const entry_places& places) {
  const bool check_finite = !allow_nonfinite;
  // One row: throws on the first bad entry, returns whether its columns ascend.
  auto check_row = [&](global_index_type r) {
    bool canonical = true;
    global_index_type previous = -1;
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k];
      if (c < 0 || c >= a.cols)
        DSPMV_BAD_INPUT(places.path, places.columns, "column index " + to_string(c) + " of row " +
                                                         to_string(first_row + r) + " is out of range [0, " +
                                                         to_string(a.cols) + ")");
      if (check_finite && !std::isfinite(a.values[k]))
        DSPMV_BAD_INPUT(places.path, places.values, "non-finite value " + to_string(a.values[k]) + " in row " +
                                                        to_string(first_row + r) +
                                                        " (allow_nonfinite accepts NaN and Inf)");
      canonical &= c > previous;
      previous = c;
    }
    return canonical;
  };
  // In parallel, without throwing (an exception must not leave an OpenMP region): the first bad
  // row, if any, is checked again on its own to raise the sequential version's error.
  bool canonical = true;
  global_index_type first_bad = a.rows;
  const auto nnz = static_cast<std::size_t>(a.nnz());
#pragma omp parallel for schedule(static) reduction(&& : canonical) reduction(min : first_bad) if (nnz >= parallel_entries)
  for (global_index_type r = 0; r < a.rows; ++r) {
    global_index_type previous = -1;
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k];
      if (c < 0 || c >= a.cols || (check_finite && !std::isfinite(a.values[k]))) first_bad = std::min(first_bad, r);
      canonical = canonical && c > previous;
      previous = c;
    }
  }
  if (first_bad < a.rows) check_row(first_bad);  // throws
  return canonical;
}

void sum_repeated_columns(csr_matrix<double>& a, global_index_type first_row, bool allow_nonfinite,
                          const entry_places& places) {
  sort_and_sum_rows(a);
  if (allow_nonfinite) return;
  for (global_index_type r = 0; r < a.rows; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (!std::isfinite(a.values[k]))
        DSPMV_BAD_INPUT(places.path, places.values, "the repeated entries of row " + to_string(first_row + r) +
                                                        ", column " + to_string(a.col_idx[k]) + " add up to " +
                                                        to_string(a.values[k]) +
                                                        " (allow_nonfinite accepts NaN and Inf)");
}

void finish_csr_rows(csr_matrix<double>& a, global_index_type first_row, bool allow_nonfinite,
                     const entry_places& places) {
  if (!check_csr_entries(a, first_row, allow_nonfinite, places))
    sum_repeated_columns(a, first_row, allow_nonfinite, places);
}

void check_finite(const std::vector<double>& values, std::int64_t first_entry, bool allow_nonfinite,
                  const std::string& path, const std::string& where) {
  if (allow_nonfinite) return;
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      DSPMV_BAD_INPUT(path, where, "non-finite value " + to_string(values[k]) + " at entry " +
                                       to_string(first_entry + static_cast<std::int64_t>(k)) +
                                       " (allow_nonfinite accepts NaN and Inf)");
}

}  // namespace distspmv::io::detail
