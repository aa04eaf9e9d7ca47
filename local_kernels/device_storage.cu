#include "local_kernels/device_storage.hpp"

#include <utility>

#include "common/cuda_check.hpp"

namespace distspmv {

device_storage::device_storage(device_storage&& o) noexcept
    : blocks_(std::move(o.blocks_)), bytes_(std::exchange(o.bytes_, 0)) {
  o.blocks_.clear();
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
  for (void* p : blocks_) DSPMV_CUDA_CHECK_NOTHROW(cudaFree(p));
  blocks_.clear();
  bytes_ = 0;
}

void* device_storage::allocate_bytes(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  DSPMV_CUDA_CHECK(cudaMalloc(&p, bytes));
  blocks_.push_back(p);
  bytes_ += bytes;
  return p;
}

void* device_storage::upload_bytes(const void* host, std::size_t bytes) {
  void* p = allocate_bytes(bytes);
  if (bytes > 0) DSPMV_CUDA_CHECK(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
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
  if (bytes > 0) DSPMV_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
}

void device_synchronize() { DSPMV_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace distspmv
