// CUDA side of dist/gpu.hpp.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "common/cuda_check.hpp"
#include "distspmv/config.hpp"
#include "dist/gpu.hpp"
#include "dist/transport/device_flags.cuh"
#include "dist/watchdog.hpp"

namespace distspmv::dist::gpu {

void stream_deleter::operator()(CUstream_st* s) const noexcept { DSPMV_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s)); }
void event_deleter::operator()(CUevent_st* e) const noexcept { DSPMV_CUDA_CHECK_NOTHROW(cudaEventDestroy(e)); }
void graph_deleter::operator()(CUgraphExec_st* g) const noexcept { DSPMV_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(g)); }
void device_deleter::operator()(void* p) const noexcept { DSPMV_CUDA_CHECK_NOTHROW(cudaFree(p)); }
void pinned_deleter::operator()(void* p) const noexcept { DSPMV_CUDA_CHECK_NOTHROW(cudaFreeHost(p)); }

stream_ptr make_stream(bool high_priority) {
  int least = 0, greatest = 0;
  DSPMV_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s = nullptr;
  DSPMV_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high_priority ? greatest : least));
  return stream_ptr(s);
}

event_ptr make_event(bool timing) {
  cudaEvent_t e = nullptr;
  DSPMV_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return event_ptr(e);
}

float elapsed_ms(event_t start, event_t stop) {
  float ms = 0;
  DSPMV_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms;
}

void record(event_t e, cuda_stream_t s) { DSPMV_CUDA_CHECK(cudaEventRecord(e, s)); }
void wait(cuda_stream_t s, event_t e) { DSPMV_CUDA_CHECK(cudaStreamWaitEvent(s, e, 0)); }
bool query(cuda_stream_t s) {
  const cudaError_t rc = cudaStreamQuery(s);
  if (rc == cudaErrorNotReady) return false;
  DSPMV_CUDA_CHECK(rc);
  return true;
}

void synchronize(cuda_stream_t s) {
  watchdog::wait_until([s] { return query(s); },
                       [] { return std::string("its GPU stream (an apply's halo waits on its neighbours' GPUs)"); });
}

graph_ptr capture(cuda_stream_t s, const std::function<void()>& enqueue) {
  DSPMV_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  bool enqueued = true;
  try {
    enqueue();
  } catch (const std::exception&) {
    enqueued = false;  // e.g. a launch check that synchronises (DISTSPMV_DEBUG_SYNC)
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec = nullptr;
  const bool ok = enqueued && ended == cudaSuccess && graph != nullptr &&
                  cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
  if (graph != nullptr) DSPMV_CUDA_CHECK(cudaGraphDestroy(graph));
  if (!ok) {
    (void)cudaGetLastError();  // capture errors are not sticky: clear them, the caller goes on eagerly
    return nullptr;
  }
  return graph_ptr(exec);
}

void launch(CUgraphExec_st* g, cuda_stream_t s) { DSPMV_CUDA_CHECK(cudaGraphLaunch(g, s)); }

device_ptr allocate_device(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) DSPMV_CUDA_CHECK(cudaMalloc(&p, bytes));
  return device_ptr(p);
}

pinned_ptr allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) DSPMV_CUDA_CHECK(cudaMallocHost(&p, bytes));
  return pinned_ptr(p);
}

void copy_async(void* dst, const void* src, std::size_t bytes, cuda_stream_t s) {
  if (bytes > 0) DSPMV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
}

bool is_device_pointer(const void* p) {
  if (p == nullptr) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // unregistered host memory on old drivers: not an error
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

int current_device() {
  int d = 0;
  DSPMV_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int device) { DSPMV_CUDA_CHECK(cudaSetDevice(device)); }

std::string device_description(int device) {
  cudaDeviceProp prop{};
  DSPMV_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  char bus[32];
  std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  return std::string(prop.name) + " (" + bus + ")";
}

namespace {

template <typename V>
__global__ void gather_kernel(const V* __restrict__ x, const index_type* __restrict__ idx, offset_type n,
                              V* __restrict__ out) {
  const offset_type k = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (k < n) out[k] = x[idx[k]];
}

template <typename V>
__global__ void scatter_add_kernel(const V* __restrict__ t, const index_type* __restrict__ rows, global_index_type n,
                                   V* __restrict__ y) {
  const offset_type i = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (i < n) y[rows[i]] += t[i];
}

template <typename V, bool wait>
__global__ void halo_product_kernel(halo_csr<V> a, V alpha, const V* __restrict__ ghosts, V* __restrict__ t,
                                    ready_flags w) {
  if constexpr (wait) {
    if (!__syncthreads_and(flags::wait_ready(w))) return;  // gave up: the watchdog reports it
  }
  for (global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; i < a.rows;
       i += static_cast<global_index_type>(gridDim.x) * blockDim.x) {
    V sum = 0;
    for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * ghosts[a.col_idx[k]];
    t[i] = alpha * sum;
  }
}

__global__ void wait_ready_kernel(ready_flags w) { flags::wait_ready(w); }

}  // namespace

int multiprocessors() {
  int n = 0;
  DSPMV_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, current_device()));
  return n;
}

void wait_ready(const ready_flags& w, cuda_stream_t s) {
  if (w.n == 0) return;
  wait_ready_kernel<<<1, 32, 0, s>>>(w);
  DSPMV_CUDA_CHECK_LAUNCH(s);
}

template <typename V>
void halo_product(const halo_csr<V>& a, V alpha, const V* ghosts, V* t, cuda_stream_t s, const ready_flags* wait) {
  if (a.rows == 0) {
    if (wait) wait_ready(*wait, s);  // the ghosts' consumers after it still need them in place
    return;
  }
  constexpr int block = 256;
  const auto blocks = (a.rows + block - 1) / block;
  if (wait && wait->n > 0) {
    // Its blocks spin until the neighbours' packing kernels have run: at most two per SM, so that
    // spinning blocks never hold the slots those kernels (and the release) need on this GPU.
    const auto grid = static_cast<unsigned>(std::min<global_index_type>(blocks, 2 * multiprocessors()));
    halo_product_kernel<V, true><<<grid, block, 0, s>>>(a, alpha, ghosts, t, *wait);
  } else {
    halo_product_kernel<V, false><<<static_cast<unsigned>(blocks), block, 0, s>>>(a, alpha, ghosts, t, ready_flags{});
  }
  DSPMV_CUDA_CHECK_LAUNCH(s);
}

template <typename V>
void gather(const V* x, const index_type* idx, offset_type n, V* out, cuda_stream_t s) {
  if (n == 0) return;
  constexpr int block = 256;
  gather_kernel<<<static_cast<unsigned>((n + block - 1) / block), block, 0, s>>>(x, idx, n, out);
  DSPMV_CUDA_CHECK_LAUNCH(s);
}

template <typename V>
void scatter_add(const V* t, const index_type* rows, global_index_type n, V* y, cuda_stream_t s) {
  if (n == 0) return;
  constexpr int block = 256;
  scatter_add_kernel<<<static_cast<unsigned>((n + block - 1) / block), block, 0, s>>>(t, rows, n, y);
  DSPMV_CUDA_CHECK_LAUNCH(s);
}

template void gather(const double*, const index_type*, offset_type, double*, cuda_stream_t);
template void gather(const float*, const index_type*, offset_type, float*, cuda_stream_t);

template void scatter_add(const double*, const index_type*, global_index_type, double*, cuda_stream_t);
template void scatter_add(const float*, const index_type*, global_index_type, float*, cuda_stream_t);

template void halo_product(const halo_csr<double>&, double, const double*, double*, cuda_stream_t,
                           const ready_flags*);
template void halo_product(const halo_csr<float>&, float, const float*, float*, cuda_stream_t, const ready_flags*);

}  // namespace distspmv::dist::gpu
