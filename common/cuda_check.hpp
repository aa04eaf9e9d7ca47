// Check macros for CUDA runtime, cuSPARSE and NCCL calls and for kernel launches.
// Include only from CUDA translation units (.cu) or CUDA-only .cpp files.
#pragma once

#include <cuda_runtime_api.h>

#include "common/errors.hpp"
#include "distspmv/config.hpp"

#define DSPMV_CUDA_CHECK(call)                                                               \
  do {                                                                                       \
    const cudaError_t dspmv_err_ = (call);                                                   \
    if (dspmv_err_ != cudaSuccess)                                                           \
      throw ::distspmv::cuda_error(#call, cudaGetErrorString(dspmv_err_), __FILE__, __LINE__); \
  } while (0)

/// After every kernel launch: the launch error, and with DISTSPMV_DEBUG_SYNC the kernel's own.
#define DSPMV_CUDA_CHECK_LAUNCH(stream)                                       \
  do {                                                                        \
    DSPMV_CUDA_CHECK(cudaGetLastError());                                     \
    if (DISTSPMV_DEBUG_SYNC) DSPMV_CUDA_CHECK(cudaStreamSynchronize(stream)); \
  } while (0)

/// For destructors: never throw, report and terminate (Ginkgo's habit).
#define DSPMV_CUDA_CHECK_NOTHROW(call)                                                       \
  do {                                                                                       \
    const cudaError_t dspmv_err_ = (call);                                                   \
    if (dspmv_err_ != cudaSuccess && dspmv_err_ != cudaErrorCudartUnloading) {               \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(dspmv_err_));                                          \
      std::terminate();                                                                      \
    }                                                                                        \
  } while (0)
