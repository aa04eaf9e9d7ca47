// Row splitting for the ranks' "read rows [a, b)" step (DESIGN.md §1, §7).
//
// split_rows_by_nnz places boundary i (0 < i < k) at the row prefix whose running nonzero count
// is nearest to the ideal target i * nnz / k. Rounding to the nearer of the two prefixes that
// bracket the target (rather than always the first one past it) keeps every range within half
// a row of its ideal start and end, so no range exceeds nnz / k by more than one row's length.
// Because targets increase with i and row_ptr is non-decreasing, the boundaries come out
// non-decreasing; ranges may be empty when k > rows or when a giant row swallows several targets.
#include "io/row_split.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"

namespace distspmv::io {

namespace {

/// i * nnz / k without overflowing int64 for huge nnz (i <= k).
offset_type target_prefix(offset_type nnz, int i, int k) {
  const offset_type q = nnz / k, r = nnz % k;
  return q * i + r * i / k;
}

}  // namespace

std::vector<row_range> split_rows_by_nnz(const std::vector<offset_type>& row_ptr, int k) {
  DSPMV_REQUIRE(k >= 1, "split_rows_by_nnz: k = " + std::to_string(k) + " must be at least 1");
  DSPMV_REQUIRE(!row_ptr.empty(), "split_rows_by_nnz: row_ptr must have rows + 1 >= 1 entries");
  const auto rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  const offset_type base = row_ptr.front();  // 0 for a whole matrix; tolerate a slice's offsets
  const offset_type nnz = row_ptr.back() - base;
  DSPMV_REQUIRE(nnz >= 0, "split_rows_by_nnz: row_ptr ends below its start (" + std::to_string(row_ptr.back()) +
                              " < " + std::to_string(base) + ")");
  // Without nonzeros every split is balanced in nnz; spread the rows instead so the ranks still
  // share the (empty) rows' bookkeeping.
  if (nnz == 0) return split_rows_evenly(rows, k);

  std::vector<row_range> ranges(k);
  global_index_type previous = 0;
  for (int i = 1; i <= k; ++i) {
    global_index_type boundary = rows;
    if (i < k) {
      const offset_type target = base + target_prefix(nnz, i, k);
      // First row prefix at or past the target: the row where the running count crosses it.
      const auto it = std::lower_bound(row_ptr.begin(), row_ptr.end(), target);
      boundary = static_cast<global_index_type>(it - row_ptr.begin());
      // The prefix just before may be nearer; ties go to the crossing row (the documented rule).
      // Stepping back, skip the whole run of equal prefixes so that empty rows at a boundary
      // start the next range, as they do when the crossing row is kept.
      if (boundary > 0 && target - row_ptr[boundary - 1] < row_ptr[boundary] - target) {
        const offset_type below = row_ptr[boundary - 1];
        boundary = static_cast<global_index_type>(
            std::lower_bound(row_ptr.begin(), row_ptr.begin() + boundary, below) - row_ptr.begin());
      }
      boundary = std::clamp(boundary, previous, rows);
    }
    ranges[i - 1] = row_range{previous, boundary};
    previous = boundary;
  }
  return ranges;
}

std::vector<row_range> split_rows_evenly(global_index_type rows, int k) {
  DSPMV_REQUIRE(k >= 1, "split_rows_evenly: k = " + std::to_string(k) + " must be at least 1");
  DSPMV_REQUIRE(rows >= 0, "split_rows_evenly: rows = " + std::to_string(rows) + " must not be negative");
  std::vector<row_range> ranges(k);
  const global_index_type base = rows / k, extra = rows % k;
  global_index_type begin = 0;
  for (int i = 0; i < k; ++i) {
    const global_index_type end = begin + base + (i < extra ? 1 : 0);
    ranges[i] = row_range{begin, end};
    begin = end;
  }
  return ranges;
}

}  // namespace distspmv::io
