// Splitting rows into k contiguous ranges of about equal nonzeros, from the row pointer alone.
#pragma once

#include <vector>

#include "common/types.hpp"

namespace distspmv::io {

/// k contiguous ranges covering [0, rows) whose nonzero counts are as equal as contiguous ranges
/// allow (each boundary at the row where the running nnz crosses i * nnz / k). Ranges may be
/// empty (k > rows). `row_ptr` has rows + 1 entries.
std::vector<row_range> split_rows_by_nnz(const std::vector<offset_type>& row_ptr, int k);

/// k contiguous ranges of equal row counts (the first rows % k get one more).
std::vector<row_range> split_rows_evenly(global_index_type rows, int k);

}  // namespace distspmv::io
