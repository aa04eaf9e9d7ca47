// Host ELLR-T SpMV: the CPU path and the oracle of the CUDA kernel. Same two phases as the GPU:
// the ELL part writes y, then the tail rows add their remaining entries.
#include "local_kernels/ellr/ellr.hpp"

namespace distspmv::ellr {

template <typename V>
void spmv_reference(const ellr_view<V>& a, V alpha, const V* x, V beta, V* y) {
  const int t = a.threads_per_row;
#pragma omp parallel for schedule(static) if (a.rows > 20000)
  for (global_index_type r = 0; r < a.rows; ++r) {
    V sum = 0;
    for (index_type k = 0; k < a.row_length[r]; ++k) {
      const offset_type at = (k / t) * a.stripe + r * t + k % t;
      const global_index_type c = a.col_offset ? r + a.col_offset[at] : a.col_idx[at];
      sum += a.values[at] * x[c];
    }
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0: y is not read
  }
  for (global_index_type i = 0; i < a.n_tail; ++i) {
    V sum = 0;
    for (offset_type k = a.tail_ptr[i]; k < a.tail_ptr[i + 1]; ++k) sum += a.tail_values[k] * x[a.tail_col_idx[k]];
    y[a.tail_rows[i]] += alpha * sum;
  }
}

template void spmv_reference<float>(const ellr_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const ellr_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::ellr
