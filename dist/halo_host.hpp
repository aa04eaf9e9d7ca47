// Host versions of the two small kernels of the apply (the host backend).
#pragma once

#include "common/types.hpp"

namespace distspmv::dist::host {

template <typename V>
void gather(const V* x, const index_type* idx, offset_type n, V* out) {
  for (offset_type k = 0; k < n; ++k) out[k] = x[idx[k]];
}

template <typename V>
void scatter_add(const V* t, const index_type* rows, global_index_type n, V* y) {
  for (global_index_type i = 0; i < n; ++i) y[rows[i]] += t[i];
}

}  // namespace distspmv::dist::host
