// CUDA versions of the solver's vector kernels (vector_kernels.hpp).
//
// Reductions are two-stage and deterministic: stage 1 runs a fixed grid (at most
// max_reduction_blocks blocks, chosen from n alone), each block writing one partial sum per
// value into preallocated scratch; stage 2 runs one block per value summing those partials; the
// few results are copied to the host and the stream is synchronised (the caller needs them for
// MPI_Allreduce next). Nothing is allocated per call.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/cuda_check.hpp"
#include "dist/gpu.hpp"
#include "dist/solvers/vector_kernels.hpp"

namespace distspmv::solvers::kernels::cuda {

namespace {

constexpr int block_size = 256;
constexpr int warps_per_block = block_size / 32;
/// Dot products one thread accumulates at once in the multi-dot: w[i] is loaded once per tile.
constexpr int dot_tile = 8;

cudaStream_t native(cuda_stream_t s) { return static_cast<cudaStream_t>(s); }

/// Blocks of an elementwise kernel: enough to cover n, grid-stride beyond 65535 * 4 blocks.
unsigned elementwise_blocks(std::int64_t n) {
  const std::int64_t b = (n + block_size - 1) / block_size;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, 65535 * 4));
}

/// Blocks of a stage-1 reduction (at least one, so that every partial is written even for n == 0).
int reduction_blocks(std::int64_t n) {
  const std::int64_t b = (n + block_size - 1) / block_size;
  return static_cast<int>(std::clamp<std::int64_t>(b, 1, max_reduction_blocks));
}

__device__ std::int64_t global_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

/// Sums each of the first `count` of NV per-thread values over the block; thread 0 writes value t
/// to out[t * stride]. Every thread of the block must call it.
template <int NV>
__device__ void block_sum_store(double (&v)[NV], int count, double* out, std::int64_t stride) {
  __shared__ double warp_sums[NV][warps_per_block];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int t = 0; t < NV; ++t) {
    for (int off = 16; off > 0; off /= 2) v[t] += __shfl_down_sync(0xffffffffu, v[t], off);
    if (lane == 0) warp_sums[t][warp] = v[t];
  }
  __syncthreads();
  if (warp != 0) return;
#pragma unroll
  for (int t = 0; t < NV; ++t) {
    double s = lane < warps_per_block ? warp_sums[t][lane] : 0.0;
    for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0 && t < count) out[t * stride] = s;
  }
}

// ---- elementwise kernels ------------------------------------------------------------------

__global__ void fill_kernel(std::int64_t n, double v, double* y) {
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) y[i] = v;
}

__global__ void axpby_kernel(std::int64_t n, double a, const double* x, double b, double* y) {
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) y[i] = b == 0.0 ? a * x[i] : a * x[i] + b * y[i];
}

__global__ void scale_kernel(std::int64_t n, double a, double* y) {
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) y[i] *= a;
}

__global__ void multiply_kernel(std::int64_t n, const double* d, const double* x, double* y) {
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) y[i] = d[i] * x[i];
}

/// w += sum_j c[j] V_j, coefficients staged in shared memory (k doubles of dynamic shared memory).
__global__ void combine_kernel(std::int64_t n, int k, const double* V, std::int64_t ld, const double* c, double* w) {
  extern __shared__ double coeff[];
  for (int j = threadIdx.x; j < k; j += blockDim.x) coeff[j] = c[j];
  __syncthreads();
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) {
    double acc = w[i];
    for (int j = 0; j < k; ++j) acc += coeff[j] * V[j * ld + i];
    w[i] = acc;
  }
}

// ---- reductions ---------------------------------------------------------------------------

/// Stage 1 of the multi-dot: block (bx, tile) sums V_j . w over its grid-stride rows for the
/// columns j of its tile; column k (when with_self) is w itself.
__global__ void dots_stage1(std::int64_t n, int k, int values, const double* V, std::int64_t ld, const double* w,
                            double* partials) {
  const int j0 = blockIdx.y * dot_tile;
  const int count = min(dot_tile, values - j0);
  double acc[dot_tile] = {};
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) {
    const double wi = w[i];
#pragma unroll
    for (int t = 0; t < dot_tile; ++t) {
      const int j = j0 + t;
      if (t < count) acc[t] += (j < k ? V[j * ld + i] : wi) * wi;
    }
  }
  block_sum_store(acc, count, partials + static_cast<std::int64_t>(j0) * gridDim.x + blockIdx.x, gridDim.x);
}

__global__ void cg_update_stage1(std::int64_t n, double a, const double* p, const double* q, const double* inv_diag,
                                 double* x, double* r, double* z, double* partials) {
  double acc[2] = {0.0, 0.0};  // r.z, r.r
  for (std::int64_t i = global_thread(); i < n; i += grid_stride()) {
    x[i] += a * p[i];
    const double ri = r[i] - a * q[i];
    r[i] = ri;
    double zi = ri;
    if (inv_diag) {
      zi = inv_diag[i] * ri;
      z[i] = zi;
    }
    acc[0] += ri * zi;
    acc[1] += ri * ri;
  }
  block_sum_store(acc, 2, partials + blockIdx.x, gridDim.x);
}

/// Stage 2: block j sums partials[j * blocks .. (j + 1) * blocks) into results[j].
__global__ void reduce_stage2(const double* partials, int blocks, double* results) {
  double s[1] = {0.0};
  const double* mine = partials + static_cast<std::int64_t>(blockIdx.x) * blocks;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) s[0] += mine[b];
  block_sum_store(s, 1, results + blockIdx.x, 1);
}

/// Stage 2 for `values` results, then the copy to the host and the wait.
void finish_reduction(int blocks, int values, double* out, const device_scratch& scratch, cudaStream_t s) {
  reduce_stage2<<<values, block_size, 0, s>>>(scratch.partials, blocks, scratch.results);
  DSPMV_CUDA_CHECK_LAUNCH(s);
  DSPMV_CUDA_CHECK(cudaMemcpyAsync(out, scratch.results, values * sizeof(double), cudaMemcpyDeviceToHost, s));
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace

void fill(std::int64_t n, double v, double* y, cuda_stream_t s) {
  if (n == 0) return;
  fill_kernel<<<elementwise_blocks(n), block_size, 0, native(s)>>>(n, v, y);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
}

void copy(std::int64_t n, const double* x, double* y, cuda_stream_t s) {
  if (n == 0 || x == y) return;
  DSPMV_CUDA_CHECK(cudaMemcpyAsync(y, x, n * sizeof(double), cudaMemcpyDeviceToDevice, native(s)));
}

void axpby(std::int64_t n, double a, const double* x, double b, double* y, cuda_stream_t s) {
  if (n == 0) return;
  axpby_kernel<<<elementwise_blocks(n), block_size, 0, native(s)>>>(n, a, x, b, y);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
}

void scale(std::int64_t n, double a, double* y, cuda_stream_t s) {
  if (n == 0) return;
  scale_kernel<<<elementwise_blocks(n), block_size, 0, native(s)>>>(n, a, y);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
}

void multiply(std::int64_t n, const double* d, const double* x, double* y, cuda_stream_t s) {
  if (n == 0) return;
  multiply_kernel<<<elementwise_blocks(n), block_size, 0, native(s)>>>(n, d, x, y);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
}

void cg_update(std::int64_t n, double a, const double* p, const double* q, const double* inv_diag, double* x,
               double* r, double* z, double* out, const device_scratch& scratch, cuda_stream_t s) {
  const int blocks = reduction_blocks(n);
  cg_update_stage1<<<blocks, block_size, 0, native(s)>>>(n, a, p, q, inv_diag, x, r, z, scratch.partials);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
  finish_reduction(blocks, 2, out, scratch, native(s));
}

void dots(std::int64_t n, int k, const double* V, std::int64_t ld, const double* w, bool with_self, double* out,
          const device_scratch& scratch, cuda_stream_t s) {
  const int values = k + (with_self ? 1 : 0);
  if (values == 0) return;
  const int blocks = reduction_blocks(n);
  const dim3 grid(blocks, (values + dot_tile - 1) / dot_tile);
  dots_stage1<<<grid, block_size, 0, native(s)>>>(n, k, values, V, ld, w, scratch.partials);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
  finish_reduction(blocks, values, out, scratch, native(s));
}

void combine(std::int64_t n, int k, const double* V, std::int64_t ld, const double* c, double* w,
             const device_scratch& scratch, cuda_stream_t s) {
  if (n == 0 || k == 0) return;
  // Pageable source: cudaMemcpyAsync returns once c is staged, so the caller may reuse it at once.
  DSPMV_CUDA_CHECK(cudaMemcpyAsync(scratch.coeffs, c, k * sizeof(double), cudaMemcpyHostToDevice, native(s)));
  combine_kernel<<<elementwise_blocks(n), block_size, k * sizeof(double), native(s)>>>(n, k, V, ld, scratch.coeffs,
                                                                                       w);
  DSPMV_CUDA_CHECK_LAUNCH(native(s));
}

// Through dist/: the halo watchdog keeps a rank from waiting for ever on a neighbour.
void synchronize(cuda_stream_t s) { dist::gpu::synchronize(s); }

}  // namespace distspmv::solvers::kernels::cuda
