// Cache hints for the SpMV kernels (device code only).
//
// An SpMV reads the matrix once and x many times. When x is gathered from far apart (power-law
// graphs), the streamed matrix entries and the written y compete with x for the L2 cache: on H100,
// rmat:22:16 in double, adaptive CSR read 1.43 GB from DRAM where cuSPARSE read 1.14 GB (ncu).
// Streaming the matrix and y (ld/st.global.cs: evict first) cut that to 1.20 GB and the kernel's
// time by 5-6%. Where x's gathers stay close (banded rows), the same hints cost 3-5%, so the CSR
// builder decides per matrix (csr.hpp, stream_matrix). Marking x's lines evict-last on top
// (createpolicy L2::evict_last) measured no further gain. Numbers: local_kernels/README.md.
#pragma once

#include <cuda_runtime.h>

namespace distspmv::cache {

/// Data read once: ld.global.cs.
template <typename T>
__device__ __forceinline__ T stream_load(const T* p) {
  return __ldcs(p);
}

/// Data written once: st.global.cs.
template <typename T>
__device__ __forceinline__ void stream_store(T* p, T v) {
  __stcs(p, v);
}

}  // namespace distspmv::cache
