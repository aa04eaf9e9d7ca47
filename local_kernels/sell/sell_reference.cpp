// Host SELL-C-sigma SpMV: the CPU path and the oracle of the CUDA kernels. Like them it runs
// every row to its slice's width (padding adds 0 * x[sentinel]), adds a top-slice row's spill
// after, and writes through perm.
#include "local_kernels/sell/sell.hpp"

namespace distspmv::sell {

template <typename V>
void spmv_reference(const sell_view<V>& a, V alpha, const V* x, V beta, V* y) {
  const global_index_type c = a.slice_size;
#pragma omp parallel for schedule(static) if (a.rows > 20000)
  for (global_index_type i = 0; i < a.rows; ++i) {
    const global_index_type s = i / c;
    const offset_type width = (a.slice_ptr[s + 1] - a.slice_ptr[s]) / c;
    const offset_type base = a.slice_ptr[s] + i % c;
    const global_index_type r = a.perm != nullptr ? a.perm[i] : i;
    V sum = 0;
    for (offset_type j = 0; j < width; ++j) {
      const offset_type at = base + j * c;
      sum += a.values[at] * x[a.col_offset != nullptr ? i + a.col_offset[at] : a.col_idx[at]];
    }
    if (a.spill_ptr != nullptr && i % window_rows < 32) {  // a top-slice row's spill, after its slots
      const global_index_type p = i / window_rows * 32 + i % 32;
      for (offset_type k = a.spill_ptr[p]; k < a.spill_ptr[p + 1]; ++k) sum += a.spill_val[k] * x[a.spill_col[k]];
    }
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0: y is not read
  }
}

template void spmv_reference<float>(const sell_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const sell_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::sell
