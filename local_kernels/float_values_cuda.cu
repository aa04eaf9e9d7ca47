// Mixed precision's value checks and rounding on the GPU (float_values.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/find.h>
#include <thrust/transform.h>

#include "common/cuda_check.hpp"
#include "common/errors.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/float_values.hpp"

namespace distspmv {
namespace {

/// narrow_in_place's and narrow_to_new's chunk: 16 M values (narrow_in_place: a 64 MB float scratch).
constexpr offset_type narrow_chunk = offset_type{1} << 24;

template <typename V>
struct beyond_float {
  __host__ __device__ bool operator()(V v) const { return !fits_float(v); }
};
struct to_float {
  __host__ __device__ float operator()(double v) const { return static_cast<float>(v); }
};

}  // namespace

template <typename V>
void check_fits_float(const device_csr_view<V>& a, const std::string& source) {
  if (a.nnz == 0) return;
  const V* bad = thrust::find_if(thrust::device, a.values, a.values + a.nnz, beyond_float<V>{});
  if (bad == a.values + a.nnz) return;
  const offset_type k = bad - a.values;
  // Row r holds nonzero k where row_ptr[r] <= k < row_ptr[r + 1]: the rows ending by k.
  const offset_type* end = thrust::upper_bound(thrust::device, a.row_ptr + 1, a.row_ptr + a.rows + 1, k);
  throw_float_overflow(source, static_cast<double>(download_array(bad, 1)[0]), k, end - (a.row_ptr + 1));
}

template void check_fits_float(const device_csr_view<float>&, const std::string&);
template void check_fits_float(const device_csr_view<double>&, const std::string&);

// Chunk c's floats land on bytes whose doubles all lie below chunk c's end, already read into the
// scratch, so going through the chunks in order is safe.
const float* narrow_in_place(double* values, offset_type n) {
  auto* out = reinterpret_cast<float*>(values);
  if (n == 0) return out;
  device_storage scratch;
  auto* chunk = static_cast<float*>(scratch.allocate_bytes(static_cast<std::size_t>(std::min(n, narrow_chunk)) * sizeof(float)));
  for (offset_type begin = 0; begin < n; begin += narrow_chunk) {
    const offset_type m = std::min(narrow_chunk, n - begin);
    thrust::transform(thrust::device, values + begin, values + begin + m, chunk, to_float{});
    DSPMV_CUDA_CHECK(cudaMemcpy(out + begin, chunk, static_cast<std::size_t>(m) * sizeof(float), cudaMemcpyDeviceToDevice));
  }
  return out;
}

const float* narrow_to_new(const double* values, offset_type n, device_storage& storage) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  if (n == 0 || device_memory().free < bytes + narrow_headroom_bytes) return nullptr;
  float* out = nullptr;
  try {
    out = static_cast<float*>(storage.allocate_bytes(bytes));
  } catch (const bad_input&) {  // the room went meanwhile (ranks sharing the GPU): round in place
    return nullptr;
  }
  // In chunks, as narrow_in_place: each transform stays within 32-bit sizes past 2^31 values.
  for (offset_type begin = 0; begin < n; begin += narrow_chunk) {
    const offset_type m = std::min(narrow_chunk, n - begin);
    thrust::transform(thrust::device, values + begin, values + begin + m, out + begin, to_float{});
  }
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return out;
}

}  // namespace distspmv
