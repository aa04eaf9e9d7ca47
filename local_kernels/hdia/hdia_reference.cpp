// Host HDIA SpMV: the CPU path and the oracle of the CUDA kernel. Kept short enough to check by eye.
#include "local_kernels/hdia/hdia.hpp"

namespace distspmv::hdia {

template <typename V>
void spmv_reference(const hdia_view<V>& a, V alpha, const V* x, V beta, V* y) {
  const global_index_type H = a.hack_size;
#pragma omp parallel for schedule(static) if (a.rows > 20000)
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type h = r / H;
    V sum = 0;
    for (offset_type d = a.hack_offsets[h]; d < a.hack_offsets[h + 1]; ++d) {
      const global_index_type c = r + a.diag_offsets[d];
      const offset_type slot = d * H + (r - h * H);
      const V v = a.values_f32 ? static_cast<V>(a.values_f32[slot]) : a.values[slot];
      if (c >= 0 && c < a.cols) sum += v * x[c];  // skip columns outside A
    }
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0 never reads y
  }
}

template void spmv_reference<float>(const hdia_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const hdia_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::hdia
