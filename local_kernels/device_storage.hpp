// Device copies of a format's host arrays, owned together. Plain C++ (no CUDA header), so that a
// format's operator is ordinary C++; the CUDA side lives in device_storage.cu, and a build
// without CUDA gets a stub that throws not_compiled.
#pragma once

#include <cstddef>
#include <vector>

namespace distspmv {

/// Owns device allocations made by upload(); frees them all on destruction.
class device_storage {
 public:
  device_storage() = default;
  device_storage(const device_storage&) = delete;
  device_storage& operator=(const device_storage&) = delete;
  device_storage(device_storage&&) noexcept;
  device_storage& operator=(device_storage&&) noexcept;
  ~device_storage();

  /// Copies `bytes` from host memory to a new device allocation (copy_to_device: done on return);
  /// returns its address (nullptr for 0 bytes).
  void* upload_bytes(const void* host, std::size_t bytes);

  /// Typed upload of a whole vector.
  template <typename T>
  const T* upload(const std::vector<T>& v) {
    return static_cast<const T*>(upload_bytes(v.data(), v.size() * sizeof(T)));
  }

  /// A device allocation of `bytes`, uninitialised (scratch space for a kernel). When the GPU
  /// has too little memory left it throws bad_input naming the bytes asked for, the bytes free
  /// and what to do (more ranks, another format), never cudaErrorMemoryAllocation.
  void* allocate_bytes(std::size_t bytes);

  /// Takes over every allocation of `other` (a builder adopting the arrays it keeps).
  void adopt(device_storage&& other);

  /// Frees the allocation that starts at `p` now (one this storage made or adopted), e.g. an array
  /// a builder found it does not need. False, and nothing freed, where `p` starts none of them.
  bool free_allocation(const void* p);

  /// Frees everything now.
  void clear() noexcept { release(); }

  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void release() noexcept;
  struct block {
    void* address;
    std::size_t bytes;
  };
  std::vector<block> blocks_;
  std::size_t bytes_ = 0;
};

/// Bytes this process holds on its GPU through device_storage (and the GPU setup's scratch),
/// now and at the most since the last reset_device_peak(): the setup report's GPU peak.
std::size_t device_bytes_in_use();
std::size_t device_bytes_peak();
void reset_device_peak();
/// Free and total memory of the current GPU (cudaMemGetInfo); {0, 0} without CUDA.
struct device_memory_info {
  std::size_t free = 0, total = 0;
};
device_memory_info device_memory();

/// CUDA devices this process can use: 0 in a build without CUDA or on a machine without a GPU.
int cuda_device_count();
/// Synchronous copies between host and device memory (setup and tests, not the apply path): they
/// return with the data in place, so that work on any stream may use it.
void copy_to_host(void* host, const void* device, std::size_t bytes);
void copy_to_device(void* device, const void* host, std::size_t bytes);
/// Waits for all work on the current device (tests and benchmarks only).
void device_synchronize();

}  // namespace distspmv
