// Mixed precision (`--precision mixed`, build_options::float_values): the formats that can store
// their values in float (the CSR family, HDIA) and multiply them with double x into double sums.
// What they share: the check that every value fits a float, with an error naming the first that
// does not, and (GPU) rounding a double array to float, into new memory or its own.
// Plain C++: no CUDA header.
#pragma once

#include <cstddef>
#include <string>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"

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

/// Rounds them into a new allocation of `storage` instead, where the GPU has room for it (n floats
/// and narrow_headroom_bytes to spare), so that the caller can free the doubles: 4 bytes per value
/// instead of 8 from then on, for 12 while rounding. nullptr, and nothing done, where it has not
/// (then narrow_in_place). Synchronous.
constexpr std::size_t narrow_headroom_bytes = std::size_t{256} << 20;
const float* narrow_to_new(const double* values, offset_type n, device_storage& storage);

}  // namespace distspmv
