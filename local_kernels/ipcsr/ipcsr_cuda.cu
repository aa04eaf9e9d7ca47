// CUDA IPCSR SpMV (seed 004): one thread block of nt = 1024 threads per row block.
//
//   multi-row block   stage values[k] * x[col_idx[k]] for the block's nonzeros in dynamic shared
//                     memory (coalesced; 16-byte loads of values, 16 (float) or 8 (double) byte
//                     loads of col_idx where the arrays are 16-byte aligned; 4 products in flight
//                     per thread), __syncthreads, then P
//                     threads per row (P from the build's decision tree) sum the row's products
//                     and combine them with warp shuffles.
//   single-row block  the block strides over the row from global memory with 4 accumulators per
//                     thread, then reduces across the block (shuffles, then 32 partial sums).
//
// Tuning constants (not yet measured on the GPU machine; written without GPU access):
//   block_threads (ipcsr.hpp) 1024 and min_blocks_per_sm 2: eq. 3 of the paper on Hopper, 2048
//     threads per SM in two blocks of 113 KB stage each; __launch_bounds__(1024, 2) caps the
//     kernel at 32 registers so that both blocks fit.
//   4 entries in flight per thread: float one group (int4 of columns, float4 of values, 4 x
//     gathers); double two groups of (int2, double2, 2 x gathers). Wider spilled at 32 registers.
//
// Shared memory beyond 48 KB needs cudaFuncSetAttribute; prepare() raises the limit once per
// kernel and device (to the largest stage seen), after checking it against
// cudaDevAttrMaxSharedMemoryPerBlockOptin, and sets the carveout so that two blocks fit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"

namespace distspmv::ipcsr {
namespace {

constexpr int nt = block_threads;
constexpr int min_blocks_per_sm = 2;

template <typename V>
__device__ __forceinline__ V finish(V alpha, V sum, V beta, const V* y, global_index_type r) {
  // beta == 0 overwrites y: never read it, so NaN there cannot leak.
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

// Entries per 16-byte load of values: 4 floats or 2 doubles. The loops unroll to 4 entries in
// flight per thread (two groups for double); one group of 4 doubles (32-byte values), or 8
// floats in flight, spilled at the 32-register cap.
template <typename V>
constexpr int group = 16 / static_cast<int>(sizeof(V));

// The products of the `group` entries from g (g a multiple of the group, so the value load is
// 16-byte aligned and the column load 16 or 8 bytes aligned when the arrays are 16-byte aligned).
__device__ __forceinline__ void products(const ipcsr_view<float>& a, const float* __restrict__ x, offset_type g,
                                         float (&p)[4]) {
  const int4 c = __ldg(reinterpret_cast<const int4*>(a.col_idx + g));
  const float4 v = __ldg(reinterpret_cast<const float4*>(a.values + g));
  p[0] = v.x * __ldg(x + c.x);
  p[1] = v.y * __ldg(x + c.y);
  p[2] = v.z * __ldg(x + c.z);
  p[3] = v.w * __ldg(x + c.w);
}
__device__ __forceinline__ void products(const ipcsr_view<double>& a, const double* __restrict__ x, offset_type g,
                                         double (&p)[2]) {
  const int2 c = __ldg(reinterpret_cast<const int2*>(a.col_idx + g));
  const double2 v = __ldg(reinterpret_cast<const double2*>(a.values + g));
  p[0] = v.x * __ldg(x + c.x);
  p[1] = v.y * __ldg(x + c.y);
}
// The group's products to a 16-byte aligned shared-memory address.
__device__ __forceinline__ void store(float* p, const float (&v)[4]) {
  *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void store(double* p, const double (&v)[2]) {
  *reinterpret_cast<double2*>(p) = make_double2(v[0], v[1]);
}

template <typename V>
__device__ __forceinline__ V product(const ipcsr_view<V>& a, const V* __restrict__ x, offset_type k) {
  return a.values[k] * __ldg(x + a.col_idx[k]);
}

// Stage the products of entries [begin, end) at stage[k - base].
// Vec: base = begin rounded down to a multiple of 4; head and tail (fewer than a group each)
// one entry per thread, the body in aligned groups (16 bytes of values per thread and step).
template <typename V, bool Vec>
__device__ __forceinline__ void stage_products(const ipcsr_view<V>& a, const V* __restrict__ x, offset_type begin,
                                               offset_type end, offset_type base, V* stage) {
  const int tid = static_cast<int>(threadIdx.x);
  if constexpr (Vec) {
    constexpr offset_type G = group<V>;
    constexpr int steps = 4 / group<V>;  // 4 entries in flight per thread
    const offset_type body_begin = std::min(end, (begin + G - 1) & ~(G - 1));
    const offset_type body_end = std::max(body_begin, end & ~(G - 1));
    if (begin + tid < body_begin) stage[begin + tid - base] = product(a, x, begin + tid);
#pragma unroll steps
    for (offset_type g = body_begin + G * tid; g < body_end; g += G * nt) {
      V p[G];
      products(a, x, g, p);
      store(stage + (g - base), p);
    }
    if (body_end + tid < end) stage[body_end + tid - base] = product(a, x, body_end + tid);
  } else {
    offset_type k = begin + tid;
    for (; k + 3 * nt < end; k += 4 * nt) {
      const index_type c0 = a.col_idx[k], c1 = a.col_idx[k + nt], c2 = a.col_idx[k + 2 * nt],
                       c3 = a.col_idx[k + 3 * nt];
      const V v0 = a.values[k], v1 = a.values[k + nt], v2 = a.values[k + 2 * nt], v3 = a.values[k + 3 * nt];
      stage[k - base] = v0 * __ldg(x + c0);
      stage[k + nt - base] = v1 * __ldg(x + c1);
      stage[k + 2 * nt - base] = v2 * __ldg(x + c2);
      stage[k + 3 * nt - base] = v3 * __ldg(x + c3);
    }
    for (; k < end; k += nt) stage[k - base] = product(a, x, k);
  }
}

// This thread's share of the sum of entries [begin, end), read straight from global memory.
template <typename V, bool Vec>
__device__ __forceinline__ V partial_sum(const ipcsr_view<V>& a, const V* __restrict__ x, offset_type begin,
                                         offset_type end) {
  const int tid = static_cast<int>(threadIdx.x);
  V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  if constexpr (Vec) {
    constexpr offset_type G = group<V>;
    constexpr int steps = 4 / group<V>;  // 4 entries in flight per thread
    const offset_type body_begin = std::min(end, (begin + G - 1) & ~(G - 1));
    const offset_type body_end = std::max(body_begin, end & ~(G - 1));
    if (begin + tid < body_begin) s0 += product(a, x, begin + tid);
#pragma unroll steps
    for (offset_type g = body_begin + G * tid; g < body_end; g += G * nt) {
      V p[G];
      products(a, x, g, p);
      s0 += p[0];
      s1 += p[1];
      if constexpr (G == 4) {
        s2 += p[G - 2];
        s3 += p[G - 1];
      }
    }
    if (body_end + tid < end) s1 += product(a, x, body_end + tid);
  } else {
    offset_type k = begin + tid;
    for (; k + 3 * nt < end; k += 4 * nt) {
      const index_type c0 = a.col_idx[k], c1 = a.col_idx[k + nt], c2 = a.col_idx[k + 2 * nt],
                       c3 = a.col_idx[k + 3 * nt];
      const V v0 = a.values[k], v1 = a.values[k + nt], v2 = a.values[k + 2 * nt], v3 = a.values[k + 3 * nt];
      s0 += v0 * __ldg(x + c0);
      s1 += v1 * __ldg(x + c1);
      s2 += v2 * __ldg(x + c2);
      s3 += v3 * __ldg(x + c3);
    }
    for (; k < end; k += nt) s0 += product(a, x, k);
  }
  return (s0 + s1) + (s2 + s3);
}

// Sum over the block; the result is valid in thread 0. `scratch` holds nt / 32 values.
template <typename V>
__device__ __forceinline__ V block_sum(V v, V* scratch) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nt / 32 ? scratch[lane] : V(0);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  }
  return v;
}

// P threads per row over the staged products (P divides 32, so a row's threads share a warp).
// The loop bounds are the same for the whole block, so every lane reaches the shuffles.
template <typename V, int P>
__device__ __forceinline__ void reduce_rows(const ipcsr_view<V>& a, const V* stage, offset_type base,
                                            global_index_type first, global_index_type last, V alpha, V beta,
                                            V* __restrict__ y) {
  const int group = static_cast<int>(threadIdx.x) / P, lane = static_cast<int>(threadIdx.x) % P;
  const int rows = static_cast<int>(last - first);
  for (int done = 0; done < rows; done += nt / P) {  // one pass: the build keeps rows * P <= nt
    const int i = done + group;
    V sum = 0;
    if (i < rows) {
      const int rs = static_cast<int>(a.row_ptr[first + i] - base);
      const int re = static_cast<int>(a.row_ptr[first + i + 1] - base);
      for (int k = rs + lane; k < re; k += P) sum += stage[k];
    }
    if constexpr (P > 1) {
#pragma unroll
      for (int off = P / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, P);
    }
    if (lane == 0 && i < rows) y[first + i] = finish(alpha, sum, beta, y, first + i);
  }
}

template <typename V, bool Vec>
__global__ void __launch_bounds__(nt, min_blocks_per_sm)
    ipcsr_kernel(const ipcsr_view<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char ipcsr_smem[];
  V* stage = reinterpret_cast<V*>(ipcsr_smem);
  const global_index_type first = a.row_blocks[blockIdx.x];
  const global_index_type last = a.row_blocks[blockIdx.x + 1];
  const offset_type begin = a.row_ptr[first];
  const offset_type end = a.row_ptr[last];
  const int p = a.threads_per_row[blockIdx.x];  // the same for the whole block

  if (p == 0) {  // one row: Algorithm 8
    const V sum = block_sum(partial_sum<V, Vec>(a, x, begin, end), stage);
    if (threadIdx.x == 0) y[first] = finish(alpha, sum, beta, y, first);
    return;
  }

  const offset_type base = Vec ? (begin & ~offset_type(3)) : begin;
  stage_products<V, Vec>(a, x, begin, end, base, stage);
  __syncthreads();
  switch (p) {
    case 1: reduce_rows<V, 1>(a, stage, base, first, last, alpha, beta, y); break;
    case 2: reduce_rows<V, 2>(a, stage, base, first, last, alpha, beta, y); break;
    case 4: reduce_rows<V, 4>(a, stage, base, first, last, alpha, beta, y); break;
    case 8: reduce_rows<V, 8>(a, stage, base, first, last, alpha, beta, y); break;
    case 16: reduce_rows<V, 16>(a, stage, base, first, last, alpha, beta, y); break;
    default: reduce_rows<V, 32>(a, stage, base, first, last, alpha, beta, y); break;
  }
}

int device_attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  DSPMV_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, device));
  return v;
}

// Raises the kernel's dynamic shared-memory limit and carveout for `bytes` on the current device
// (once per kernel, device and new maximum; a map lookup under a mutex otherwise).
template <typename Kernel>
void prepare(Kernel* kernel, std::size_t bytes) {
  int device = 0;
  DSPMV_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, std::size_t> prepared;
  std::lock_guard<std::mutex> lock(mutex);
  std::size_t& done = prepared[{reinterpret_cast<const void*>(kernel), device}];
  if (bytes <= done) return;
  const auto optin = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > optin)
    throw error("ipcsr::spmv_cuda: the row blocks stage " + std::to_string(bytes) +
                    " bytes of shared memory per block but device " + std::to_string(device) + " allows " +
                    std::to_string(optin) + "; rebuild with ipcsr_params::shared_bytes <= " + std::to_string(optin) +
                    " (ipcsr::params_for(backend::cuda) does this)",
                __FILE__, __LINE__);
  DSPMV_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  const auto per_sm = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const auto reserved = static_cast<std::size_t>(device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, device));
  const std::size_t want = min_blocks_per_sm * (bytes + reserved);
  const int percent = static_cast<int>(std::min<std::size_t>(100, (100 * want + per_sm - 1) / per_sm));
  DSPMV_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
  done = bytes;
}

template <typename V, bool Vec>
void launch(const ipcsr_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  // Stage (with the 3 alignment slots) or, for single-row blocks, nt / 32 partial sums.
  const std::size_t bytes = static_cast<std::size_t>(std::max<offset_type>(a.stage_entries + 3, nt / 32)) * sizeof(V);
  prepare(ipcsr_kernel<V, Vec>, bytes);
  ipcsr_kernel<V, Vec><<<static_cast<unsigned>(a.n_blocks), nt, bytes, stream>>>(a, alpha, x, beta, y);
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

template <typename V>
void spmv_cuda(const ipcsr_view<V>& a, V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (a.n_blocks == 0) return;
  // cudaMalloc'd arrays are 256-byte aligned; the scalar kernel covers views built otherwise.
  if (aligned16(a.col_idx) && aligned16(a.values))
    launch<V, true>(a, alpha, x, beta, y, stream);
  else
    launch<V, false>(a, alpha, x, beta, y, stream);
}

std::size_t device_shared_bytes() {
  int device = 0;
  if (cuda_device_count() == 0 || cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // clear a "no device" error
    return 0;
  }
  const int per_sm = device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  const int reserved = device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, device);
  const int threads_per_sm = device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int blocks_per_sm = device_attribute(cudaDevAttrMaxBlocksPerMultiprocessor, device);
  // Eq. 3: N_mem / min(N_td / nt, N_tb), less what the runtime reserves per block.
  const int blocks = std::max(1, std::min(threads_per_sm / nt, blocks_per_sm));
  const int bytes = std::min(per_sm / blocks - reserved, optin);
  return bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
}

template void spmv_cuda(const ipcsr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void spmv_cuda(const ipcsr_view<double>&, double, const double*, double, double*, cuda_stream_t);

}  // namespace distspmv::ipcsr
