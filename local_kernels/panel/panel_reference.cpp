// Host panel SpMV: the CPU path and the oracle of the CUDA kernel. Each slot receives its
// products in stored order (the kernel's rounds), then each panel row sums its slots in order;
// a split row's parts are then added in order (the kernel's second launch).
#include "local_kernels/panel/panel.hpp"

namespace distspmv::panel {

template <typename V>
void spmv_reference(const panel_view<V>& a, V alpha, const V* x, V beta, V* y) {
#pragma omp parallel if (a.panels > 1)
  {
    std::vector<V> sums(static_cast<std::size_t>(a.max_slots));
#pragma omp for schedule(dynamic, 1)
    for (index_type p = 0; p < a.panels; ++p) {
      const index_type first = a.panel_row[p], rows = a.panel_row[p + 1] - first;
      const std::uint16_t* sb = a.slot_begin + first + p;
      std::fill(sums.begin(), sums.begin() + sb[rows], V(0));
      for (offset_type k = a.panel_entry[p]; k < a.panel_entry[p + 1]; ++k)
        if (a.slot[k] != padding_slot) sums[a.slot[k]] += a.values[k] * x[a.col_idx[k]];
      for (index_type i = 0; i < rows; ++i) {
        V sum = 0;
        for (int s = sb[i]; s < sb[i + 1]; ++s) sum += sums[static_cast<std::size_t>(s)];
        const index_type r = a.row_out == nullptr ? first + i : a.row_out[first + i];
        if (r < 0) a.part_sums[~r] = sum;
        else y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];  // beta == 0 never reads y
      }
    }
  }
  for (index_type s = 0; s < a.splits; ++s) {
    V sum = 0;
    for (index_type j = a.split_part[s]; j < a.split_part[s + 1]; ++j) sum += a.part_sums[j];
    const index_type r = a.split_row[s];
    y[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

template void spmv_reference<float>(const panel_view<float>&, float, const float*, float, float*);
template void spmv_reference<double>(const panel_view<double>&, double, const double*, double, double*);

}  // namespace distspmv::panel
