// Host IPCSR SpMV: the arrays are plain CSR, so the host path is the CSR row loop (the row blocks
// only shape the GPU launch). Kept short enough to check by eye.
#include "local_kernels/ipcsr/ipcsr.hpp"

namespace distspmv::ipcsr {

template <typename V>
void spmv_reference(const ipcsr_view<V>& a, V alpha, const V* x, V beta, V* y) {
#pragma omp parallel for schedule(dynamic, 1024) if (a.rows > 20000)
  for (global_index_type r = 0; r < a.rows; ++r) {
    V sum = 0;
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0 never reads y
  }
}

template void spmv_reference<float>(const ipcsr_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const ipcsr_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::ipcsr
