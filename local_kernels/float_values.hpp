// Mixed precision (`--precision mixed`, build_options::float_values): the formats that can store
// their values in float (the CSR family, HDIA) and multiply them with double x into double sums.
// What they share: the check that every value fits a float, with an error naming the first that
// does not, and (GPU) rounding a double array to float in its own memory.
// Plain C++: no CUDA header.
#pragma once

#include <string>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"

namespace distspmv {

/// Whether `v` rounds to a finite float. A value already non-finite passes (it stays so in float;
/// --allow-nonfinite decides about it).
template <typename ValueType>
constexpr bool fits_float(ValueType v) {
  const bool finite = v - v == v - v;  // false for Inf and NaN
  constexpr ValueType largest = ValueType(3.4028234663852886e38);  // FLT_MAX
  return !finite || (v <= largest && v >= -largest);
}

/// bad_input for value `value`, nonzero `k` of row `row`, beyond float's range.
[[noreturn]] void throw_float_overflow(const std::string& source, double value, offset_type k, global_index_type row);

/// Throws throw_float_overflow's bad_input for the first value of `a` beyond float's range.
template <typename ValueType>
void check_fits_float(const csr_matrix<ValueType, index_type>& a, const std::string& source);

/// The same for a device CSR block, on the GPU (float_values_cuda.cu).
template <typename ValueType>
void check_fits_float(const device_csr_view<ValueType>& a, const std::string& source);

/// Rounds the n doubles at `values` (device memory) to float into the first half of the same
/// memory, in place, and returns it; the second half stays allocated. Synchronous.
const float* narrow_in_place(double* values, offset_type n);

}  // namespace distspmv
