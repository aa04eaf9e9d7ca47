// Mixed precision's value checks on the host (float_values.hpp).
#include "local_kernels/float_values.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distspmv {

void throw_float_overflow(const std::string& source, double value, offset_type k, global_index_type row) {
  DSPMV_BAD_INPUT(source, "values",
                  fmt::format("value {:g} (nonzero {} of row {}) is beyond float's range (+-3.4e38): mixed precision "
                              "stores the values in float; run it with --precision double",
                              value, k, row));
}

template <typename V>
void check_fits_float(const csr_matrix<V, index_type>& a, const std::string& source) {
  const auto bad = std::find_if(a.values.begin(), a.values.end(), [](V v) { return !fits_float(v); });
  if (bad == a.values.end()) return;
  const auto k = static_cast<offset_type>(bad - a.values.begin());
  const auto row = std::upper_bound(a.row_ptr.begin() + 1, a.row_ptr.end(), k) - (a.row_ptr.begin() + 1);
  throw_float_overflow(source, static_cast<double>(*bad), k, row);
}

template void check_fits_float(const csr_matrix<float, index_type>&, const std::string&);
template void check_fits_float(const csr_matrix<double, index_type>&, const std::string&);

}  // namespace distspmv
