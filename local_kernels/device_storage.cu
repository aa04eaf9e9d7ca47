#include "local_kernels/device_storage.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"

namespace distspmv {
namespace {

std::atomic<std::size_t> in_use{0}, peak{0};

void count_allocation(std::size_t bytes) {
  const std::size_t now = in_use += bytes;
  std::size_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
}

std::string gib(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::size_t device_bytes_in_use() { return in_use.load(); }
std::size_t device_bytes_peak() { return peak.load(); }
void reset_device_peak() { peak.store(in_use.load()); }

device_memory_info device_memory() {
  device_memory_info m;
  DSPMV_CUDA_CHECK(cudaMemGetInfo(&m.free, &m.total));
  return m;
}

device_storage::device_storage(device_storage&& o) noexcept
    : blocks_(std::move(o.blocks_)), bytes_(std::exchange(o.bytes_, 0)) {
  o.blocks_.clear();
}

void device_storage::adopt(device_storage&& other) {
  blocks_.insert(blocks_.end(), other.blocks_.begin(), other.blocks_.end());
  bytes_ += std::exchange(other.bytes_, 0);
  other.blocks_.clear();
}

device_storage& device_storage::operator=(device_storage&& o) noexcept {
  if (this != &o) {
    release();
    blocks_ = std::move(o.blocks_);
    o.blocks_.clear();
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

device_storage::~device_storage() { release(); }

void device_storage::release() noexcept {
  for (const block& b : blocks_) DSPMV_CUDA_CHECK_NOTHROW(cudaFree(b.address));
  in_use -= bytes_;
  blocks_.clear();
  bytes_ = 0;
}

void* device_storage::allocate_bytes(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    int device = 0;
    cudaGetDevice(&device);
    DSPMV_BAD_INPUT("GPU " + std::to_string(device), "out of memory",
                    "needed " + gib(bytes) + " more, " + gib(free) + " free of " + gib(total) + " (this process holds " +
                        gib(in_use.load()) + "); use more ranks (GPUs), a format with less padding, or float values");
  }
  DSPMV_CUDA_CHECK(err);
  blocks_.push_back({p, bytes});
  bytes_ += bytes;
  count_allocation(bytes);
  return p;
}

bool device_storage::free_allocation(const void* p) {
  if (p == nullptr) return false;
  const auto it = std::find_if(blocks_.begin(), blocks_.end(), [p](const block& b) { return b.address == p; });
  if (it == blocks_.end()) return false;
  DSPMV_CUDA_CHECK(cudaFree(it->address));
  bytes_ -= it->bytes;
  in_use -= it->bytes;
  blocks_.erase(it);
  return true;
}

void* device_storage::upload_bytes(const void* host, std::size_t bytes) {
  void* p = allocate_bytes(bytes);
  copy_to_device(p, host, bytes);
  return p;
}

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

void copy_to_host(void* host, const void* device, std::size_t bytes) {
  if (bytes > 0) DSPMV_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
}

void copy_to_device(void* device, const void* host, std::size_t bytes) {
  if (bytes == 0) return;
  DSPMV_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before its DMA has landed (CUDA's "API
  // synchronization behavior"), and the engine's kernels run on non-blocking streams, which do not
  // wait for the default stream: an apply right after an upload read stale entries of x and y
  // (one --check in 12 failed over cuda-ipc on 2 H200s, jobs/results/2026-11-26_h200x2_checks).
  DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void device_synchronize() { DSPMV_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace distspmv
