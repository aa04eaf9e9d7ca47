// Host HLL SpMV: the CPU path and the oracle of the CUDA kernel. Kept short enough to check by eye.
#include "local_kernels/hll/hll.hpp"

namespace distspmv::hll {

template <typename V>
void spmv_reference(const hll_view<V>& a, V alpha, const V* x, V beta, V* y) {
  const global_index_type H = a.hack_size;
#pragma omp parallel for schedule(static) if (a.rows > 20000)
  for (global_index_type i = 0; i < a.rows; ++i) {  // i: stored row
    const global_index_type h = i / H;
    const offset_type base = a.hack_offsets[h] + (i - h * H);
    V sum = 0;
    for (index_type j = 0; j < a.row_length[i]; ++j) sum += a.values[base + j * H] * x[a.col_idx[base + j * H]];
    const global_index_type r = a.row_idx ? a.row_idx[i] : i;
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0 never reads y
  }
}

template void spmv_reference<float>(const hll_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const hll_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::hll
