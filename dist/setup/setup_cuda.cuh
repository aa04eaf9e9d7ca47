// Small pieces shared by the GPU setup's files (split_rows_cuda.cu, gpu_order_cuda.cu, permute_split_cuda.cu):
// grid sizes, CUB's reusable temporary storage, typed scratch arrays and the 32-bit item limit
// of one CUB call. Include only from .cu files.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string>

#include "common/cuda_check.hpp"
#include "common/errors.hpp"
#include "common/types.hpp"
#include "local_kernels/device_storage.hpp"

namespace distspmv::dist::setup_cuda {

constexpr int block = 256;

inline unsigned grid_for(long long n) {
  return static_cast<unsigned>(std::max<long long>(1, (n + block - 1) / block));
}

/// CUB's temporary storage, reused across calls and grown when a call needs more.
struct cub_temp {
  device_storage mem;
  void* data = nullptr;
  std::size_t bytes = 0;

  template <typename Call>
  void run(Call&& call) {
    std::size_t need = 0;
    DSPMV_CUDA_CHECK(call(static_cast<void*>(nullptr), need));
    if (need > bytes) {
      mem = device_storage();
      data = mem.allocate_bytes(need);
      bytes = need;
    }
    DSPMV_CUDA_CHECK(call(data, need));
  }
};

/// A typed device array of `n` elements (at least one, so never null) in `mem`.
template <typename T>
T* scratch(device_storage& mem, long long n) {
  return static_cast<T*>(mem.allocate_bytes(static_cast<std::size_t>(std::max<long long>(1, n)) * sizeof(T)));
}

inline void require_below_int(long long n, const char* what) {
  if (n > std::numeric_limits<int>::max())
    DSPMV_BAD_INPUT("GPU order", what,
                    std::to_string(n) + " items exceed the 2^31 - 1 of one CUB call; use more ranks or --order none");
}

template <typename T>
T read_one(const T* d) {
  T h{};
  DSPMV_CUDA_CHECK(cudaMemcpy(&h, d, sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// Bits needed for values in [0, n) (at least 1).
inline int bits_for(long long n) {
  int b = 1;
  while (b < 62 && (1LL << b) < n) ++b;
  return b;
}

}  // namespace distspmv::dist::setup_cuda
