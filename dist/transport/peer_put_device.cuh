// Device side of peer-put's exchange (dist/gpu.hpp's put_view), shared by the transport's packing
// kernel (peer_put_transport.cu) and the fused apply (dist/fused_apply.cu). The protocol is
// described in peer_put_transport.cu. CUDA translation units only.
#pragma once

#include "dist/gpu.hpp"
#include "dist/transport/device_flags.cuh"

namespace distspmv::dist::gpu::put {

using flags::flag_t;

/// Exchange e = epoch + 1, run by every thread of every block of a kernel: thread 0 of each block
/// waits until every receiver has consumed e - 1 (so that no ghost it still reads is overwritten),
/// the block stores its share of x[send_idx] into the receivers' ghost buffers and fences at
/// system scope, and the last block to finish raises the receivers' ready flags to e. Returns e.
template <typename V>
__device__ flag_t put_halo(const put_view& p, const V* __restrict__ x, const index_type* __restrict__ send_idx) {
  __shared__ flag_t e;
  __shared__ bool go;
  if (threadIdx.x == 0) {
    e = *p.epoch + 1;  // written by the previous exchange's last block, in an earlier kernel
    go = true;
    for (int i = 0; i < p.n_receivers && go; ++i)
      go = flags::spin_until(p.ack + i, e - 1, p.timeout_ns, p.note, i, spin_note::ack);
  }
  __syncthreads();
  const flag_t exchange = e;
  if (go) {
    const offset_type n = p.send_offsets[p.n_receivers];
    for (offset_type k = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x; k < n;
         k += static_cast<offset_type>(gridDim.x) * blockDim.x) {
      int r = 0;  // the receiver of entry k: few neighbours, a linear scan of cached offsets
      while (p.send_offsets[r + 1] <= k) ++r;
      static_cast<V*>(p.destinations[r])[k - p.send_offsets[r]] = x[send_idx[k]];
    }
    __threadfence_system();  // this thread's stores reach the receivers before any flag below
  }
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(p.packed_blocks, 1u) == gridDim.x - 1) {  // the last block
    __threadfence_system();
    if (go)
      for (int i = 0; i < p.n_receivers; ++i) flags::store_release(p.remote_ready[i], exchange);
    *p.packed_blocks = 0;
    *p.epoch = exchange;
  }
  return exchange;
}

/// Spins until every sender's ready flag has reached exchange e. False where a spin gave up (the
/// note tells the watchdog).
__device__ inline bool halo_arrived(const put_view& p, flag_t e) {
  bool ok = true;
  for (int j = threadIdx.x; j < p.n_senders; j += blockDim.x)
    ok = flags::spin_until(p.ready + j, e, p.timeout_ns, p.note, j, spin_note::ready) && ok;
  return ok;
}

/// Tells every sender that exchange e's ghosts are read, so that it may overwrite them (one thread
/// per sender, from `lane` in steps of `stride`), and counts the exchange consumed.
__device__ inline void acknowledge(const put_view& p, flag_t e, int lane, int stride) {
  for (int j = lane; j < p.n_senders; j += stride) flags::store_release(p.remote_ack[j], e);
  if (lane == 0) *p.consumed = e;
}

}  // namespace distspmv::dist::gpu::put
