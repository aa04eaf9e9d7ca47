// The fused apply of small blocks over peer-put (dist/gpu.hpp's fused_apply, issue 36): the
// exchange and the product in one cooperative kernel.
//
// On 2-4 H100s the apply of a matrix of 0.3-3 M nonzeros took 20-27 us as a graph of its pieces
// (packing on a stream of its own, the local SpMV, the halo kernel waiting on the flags, the
// scatter, the release), against 7-14 us on one GPU: kernel launches and the dependencies between
// streams, not NVLink, set that floor; the same pieces on one stream were no faster (run 7 of
// jobs/results/2026-11-27_h100x4_exchange). Here every block does, in order:
//   1. its share of the packing: x[send_idx] stored into the neighbours' ghost buffers, fenced, and
//      the neighbours' ready flags raised by the last block (peer_put_device.cuh);
//   2. its share of the interior rows (no ghost column), while the neighbours' halos travel;
//   3. waits on its own ready flags, then its share of the boundary rows, local and ghost columns
//      together (no scatter, no second pass over y);
//   4. the last block to finish acknowledges the senders.
// The blocks spin on flags, so the launch is cooperative: all of them are resident at once, and no
// block that spins holds a slot that one still to pack needs. A row is multiplied by `lanes`
// threads (4-32, from the mean row length) and summed with shuffles.
#include <cuda_runtime.h>

#include <algorithm>

#include "common/cuda_check.hpp"
#include "dist/gpu.hpp"
#include "dist/transport/peer_put_device.cuh"

namespace distspmv::dist::gpu {
namespace {

constexpr int fused_threads = 256;

/// Sum over `lanes` threads of a row's partial sums (every lane of the warp takes part).
template <int lanes, typename V>
__device__ V lane_sum(V v) {
#pragma unroll
  for (int o = lanes / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o, lanes);
  return v;
}

template <int lanes, typename V>
__device__ V row_dot(const offset_type* __restrict__ ptr, const index_type* __restrict__ col, const V* __restrict__ val,
                     global_index_type row, const V* __restrict__ v, int lane) {
  V sum = 0;
  for (offset_type k = ptr[row] + lane; k < ptr[row + 1]; k += lanes) sum += val[k] * v[col[k]];
  return sum;
}

/// Runs body(i, lane) for i < n with `lanes` threads per i over the whole grid. The loop is
/// uniform over each warp (shuffles need every lane): i past n gets lane sums of zeros.
template <int lanes, typename Body>
__device__ void for_rows(global_index_type n, Body body) {
  const global_index_type groups = static_cast<global_index_type>(gridDim.x) * (blockDim.x / lanes);
  const global_index_type first = (blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x) / lanes;
  const int lane = static_cast<int>(threadIdx.x % lanes);
  const global_index_type warp_first = first - (threadIdx.x % 32) / lanes;  // the warp's first group
  for (global_index_type base = warp_first; base < n; base += groups) body(base + (first - warp_first), lane);
}

template <typename V>
__device__ V combine(V alpha, V sum, V beta, const V* y, global_index_type row) {
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];  // beta 0: y may hold NaN
}

template <typename V, int lanes>
__global__ void __launch_bounds__(fused_threads)
    fused_kernel(fused_block<V> a, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y,
                 const V* __restrict__ ghosts, put_view p, bool exchange, const index_type* __restrict__ send_idx) {
  flags::flag_t e = 0;
  if (exchange) e = put::put_halo(p, x, send_idx);

  for_rows<lanes>(a.n_interior, [&](global_index_type i, int lane) {
    const bool in = i < a.n_interior;
    const global_index_type r = in ? a.interior[i] : 0;
    const V sum = lane_sum<lanes>(in ? row_dot<lanes>(a.local_ptr, a.local_col, a.local_val, r, x, lane) : V(0));
    if (in && lane == 0) y[r] = combine(alpha, sum, beta, y, r);
  });

  bool arrived = true;
  if (exchange && p.n_senders > 0) arrived = __syncthreads_or(!put::halo_arrived(p, e)) == 0;
  if (arrived) {  // else a spin gave up: the note tells the watchdog, which ends the job
    for_rows<lanes>(a.halo.rows, [&](global_index_type i, int lane) {
      const bool in = i < a.halo.rows;
      const global_index_type r = in ? a.halo_rows[i] : 0;
      V part = 0;
      if (in) {
        part = row_dot<lanes>(a.local_ptr, a.local_col, a.local_val, r, x, lane) +
               row_dot<lanes>(a.halo.row_ptr, a.halo.col_idx, a.halo.values, i, ghosts, lane);
      }
      const V sum = lane_sum<lanes>(part);
      if (in && lane == 0) y[r] = combine(alpha, sum, beta, y, r);
    });
  }

  if (exchange) {
    __syncthreads();  // this block's reads of the ghosts are done
    if (threadIdx.x == 0 && atomicAdd(p.finished_blocks, 1u) == gridDim.x - 1) {  // the last block
      put::acknowledge(p, e, 0, 1);
      *p.finished_blocks = 0;
    }
  }
}

template <typename V, int lanes>
void launch(const fused_block<V>& a, V alpha, const V* x, V beta, V* y, const V* ghosts, const put_view* put,
            const index_type* send_idx, cuda_stream_t s) {
  put_view p = put ? *put : put_view{};
  bool exchange = put != nullptr;
  void* args[] = {const_cast<fused_block<V>*>(&a), &alpha, &x, &beta, &y, &ghosts, &p, &exchange, &send_idx};
  DSPMV_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&fused_kernel<V, lanes>), dim3(a.grid),
                                               dim3(fused_threads), args, 0, s));
  DSPMV_CUDA_CHECK_LAUNCH(s);
}

template <typename V, int lanes>
int resident_blocks_per_sm() {
  int n = 0;
  DSPMV_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &fused_kernel<V, lanes>, fused_threads, 0));
  return std::max(n, 1);
}

}  // namespace

template <typename V>
void prepare_fused(fused_block<V>& a, offset_type nnz, offset_type send_total) {
  const double mean = static_cast<double>(nnz) / static_cast<double>(std::max<global_index_type>(a.rows, 1));
  a.lanes = mean <= 6 ? 4 : mean <= 12 ? 8 : mean <= 24 ? 16 : 32;
  const int per_sm = a.lanes == 4    ? resident_blocks_per_sm<V, 4>()
                     : a.lanes == 8  ? resident_blocks_per_sm<V, 8>()
                     : a.lanes == 16 ? resident_blocks_per_sm<V, 16>()
                                     : resident_blocks_per_sm<V, 32>();
  const global_index_type groups = std::max(a.n_interior, a.halo.rows);
  const global_index_type for_rows = (groups * a.lanes + fused_threads - 1) / fused_threads;
  const global_index_type for_send = (send_total + fused_threads - 1) / fused_threads;
  const global_index_type resident = static_cast<global_index_type>(per_sm) * multiprocessors();
  a.grid = static_cast<unsigned>(std::clamp<global_index_type>(std::max(for_rows, for_send), 1, resident));
}

template <typename V>
void fused_apply(const fused_block<V>& a, V alpha, const V* x, V beta, V* y, const V* ghosts, const put_view* put,
                 const index_type* send_idx, cuda_stream_t s) {
  switch (a.lanes) {
    case 4: launch<V, 4>(a, alpha, x, beta, y, ghosts, put, send_idx, s); break;
    case 8: launch<V, 8>(a, alpha, x, beta, y, ghosts, put, send_idx, s); break;
    case 16: launch<V, 16>(a, alpha, x, beta, y, ghosts, put, send_idx, s); break;
    default: launch<V, 32>(a, alpha, x, beta, y, ghosts, put, send_idx, s); break;
  }
}

template void prepare_fused(fused_block<double>&, offset_type, offset_type);
template void prepare_fused(fused_block<float>&, offset_type, offset_type);
template void fused_apply(const fused_block<double>&, double, const double*, double, double*, const double*,
                          const put_view*, const index_type*, cuda_stream_t);
template void fused_apply(const fused_block<float>&, float, const float*, float, float*, const float*,
                          const put_view*, const index_type*, cuda_stream_t);

}  // namespace distspmv::dist::gpu
