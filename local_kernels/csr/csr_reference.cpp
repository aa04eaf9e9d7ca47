// Host CSR SpMV: the CPU path and the oracle of every test. Kept short enough to check by eye.
#include "local_kernels/csr/csr.hpp"

namespace distspmv::csr {
namespace {

// One row: accumulate in the value type (what every GPU kernel does too), then scale. beta == 0
// must overwrite y, NaN or not, so it is a separate branch rather than beta * y. No values: every
// value is 1 (a pattern CSR). Values W of another type (float in double: mixed precision) are
// converted to V before the product, as the kernels do.
template <typename V, typename I, typename W>
void spmv_rows(global_index_type rows, const offset_type* row_ptr, const I* col_idx, const W* values, V alpha,
               const V* x, V beta, V* y) {
#pragma omp parallel for schedule(dynamic, 1024) if (rows > 20000)
  for (global_index_type r = 0; r < rows; ++r) {
    V sum = 0;
    for (offset_type k = row_ptr[r]; k < row_ptr[r + 1]; ++k) sum += (values ? V(values[k]) : V(1)) * x[col_idx[k]];
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

}  // namespace

template <typename V>
void spmv_reference(const csr_view<V>& a, V alpha, const V* x, V beta, V* y) {
  if (a.values_f32)
    spmv_rows(a.rows, a.row_ptr, a.col_idx, a.values_f32, alpha, x, beta, y);
  else
    spmv_rows(a.rows, a.row_ptr, a.col_idx, a.values, alpha, x, beta, y);
}

template <typename V, typename I>
void spmv_host(const csr_matrix<V, I>& a, V alpha, const V* x, V beta, V* y) {
  spmv_rows(a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), alpha, x, beta, y);
}

template void spmv_reference<float>(const csr_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const csr_view<double>&, double, const double*, double, double*);
template void spmv_host<float, index_type>(const csr_matrix<float, index_type>&, float, const float*, float, float*);
template void spmv_host<double, index_type>(const csr_matrix<double, index_type>&, double, const double*, double,
                                            double*);
template void spmv_host<double, global_index_type>(const csr_matrix<double, global_index_type>&, double,
                                                   const double*, double, double*);

}  // namespace distspmv::csr
