// Device side of the flags a GPU-signalled exchange waits on (peer-put, dist/gpu.hpp's
// ready_flags): system-scope acquire/release on 64-bit exchange numbers, and a bounded spin that
// leaves a note for the host watchdog instead of hanging. CUDA translation units only.
#pragma once

#include <cuda/atomic>

#include "dist/gpu.hpp"

namespace distspmv::dist::gpu::flags {

using flag_t = unsigned long long;

__device__ inline flag_t load_acquire(const flag_t* p) {
  return cuda::atomic_ref<flag_t, cuda::thread_scope_system>(*const_cast<flag_t*>(p)).load(cuda::memory_order_acquire);
}
__device__ inline void store_release(flag_t* p, flag_t v) {
  cuda::atomic_ref<flag_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_release);
}
__device__ inline long long now_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Spins until *flag >= value. Past `timeout_ns` (0: never) it writes `note` (pinned host memory:
/// which neighbour, waiting for what) and returns false. A short sleep between polls leaves the
/// SM's issue slots to the SpMV beside it; 64 ns keeps the added latency under NVLink's own.
__device__ inline bool spin_until(const flag_t* flag, flag_t value, long long timeout_ns, spin_note* note,
                                  int neighbour, int what) {
  if (load_acquire(flag) >= value) return true;
  const long long start = now_ns();
  while (load_acquire(flag) < value) {
    if (timeout_ns > 0 && now_ns() - start > timeout_ns) {
      note->neighbour = neighbour;
      note->what = what;
      __threadfence_system();
      *static_cast<volatile int*>(&note->timed_out) = 1;  // a plain store: host memory over PCIe
      return false;
    }
    __nanosleep(64);
  }
  return true;
}

/// Threads of one block wait until every flag of `w` has reached this exchange (*w.consumed + 1);
/// the caller synchronises the block after. False where a spin gave up.
__device__ inline bool wait_ready(const ready_flags& w) {
  const flag_t e = *w.consumed + 1;
  bool ok = true;
  for (int j = threadIdx.x; j < w.n; j += blockDim.x)
    ok = spin_until(w.ready + j, e, w.timeout_ns, w.note, j, spin_note::ready) && ok;
  return ok;
}

}  // namespace distspmv::dist::gpu::flags
