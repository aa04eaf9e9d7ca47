// Host versions of the two small kernels of the apply (the host backend and the test oracle).
#pragma once

#include "common/types.hpp"

namespace distspmv::dist::host {

template <typename V>
void gather(const V* x, const index_type* idx, offset_type n, V* out) {
  for (offset_type k = 0; k < n; ++k) out[k] = x[idx[k]];
}

template <typename V>
void halo_spmv(global_index_type n_rows, const index_type* rows, const offset_type* row_ptr, const index_type* cols,
               const V* values, V alpha, const V* ghost, V* y) {
  for (global_index_type i = 0; i < n_rows; ++i) {
    V sum = 0;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += values[k] * ghost[cols[k]];
    y[rows[i]] += alpha * sum;
  }
}

}  // namespace distspmv::dist::host
