// Host PELLR SpMV: the CPU path and the oracle of the CUDA kernel. One sorted position at a
// time, written through the permutation.
#include "local_kernels/pellr/pellr.hpp"

namespace distspmv::pellr {

template <typename V>
void spmv_reference(const pellr_view<V>& a, V alpha, const V* x, V beta, V* y) {
#pragma omp parallel for schedule(static) if (a.rows > 20000)
  for (global_index_type i = 0; i < a.rows; ++i) {
    const offset_type base = a.warp_ptr[i / 32] + i % 32;
    V sum = 0;
    for (offset_type k = 0; k < a.row_length[i]; ++k) sum += a.values[base + k * 32] * x[a.col_idx[base + k * 32]];
    const index_type r = a.perm[i];
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0: y is not read
  }
}

template void spmv_reference<float>(const pellr_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const pellr_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::pellr
