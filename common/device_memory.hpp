// RAII owners for device and pinned host memory, streams and events (STYLE.md §4).
// Raw cudaMalloc/cudaFree appear only here. Include only from CUDA translation units.
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"

namespace distspmv {

/// Owning device array of T (uninitialised). Move-only.
template <typename T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : size_(n) {
    if (n > 0) DSPMV_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }
  /// Allocates and copies a host vector (synchronously).
  explicit device_buffer(const std::vector<T>& h) : device_buffer(h.size()) { upload(h.data(), h.size()); }
  device_buffer(device_buffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }

  void upload(const T* h, std::size_t n) {
    if (n > 0) DSPMV_CUDA_CHECK(cudaMemcpy(data_, h, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(size_);
    if (size_ > 0) DSPMV_CUDA_CHECK(cudaMemcpy(h.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  void release() noexcept {
    if (data_) DSPMV_CUDA_CHECK_NOTHROW(cudaFree(data_));
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Owning page-locked host array of T, for staged transfers. Move-only.
template <typename T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t n) : size_(n) {
    if (n > 0) DSPMV_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }
  pinned_buffer(pinned_buffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer() { release(); }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void release() noexcept {
    if (data_) DSPMV_CUDA_CHECK_NOTHROW(cudaFreeHost(data_));
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Owning non-blocking CUDA stream.
class cuda_stream {
 public:
  cuda_stream() { DSPMV_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  cuda_stream(cuda_stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  cuda_stream& operator=(cuda_stream&&) = delete;
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  ~cuda_stream() {
    if (s_) DSPMV_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_));
  }
  cudaStream_t get() const noexcept { return s_; }
  void synchronize() const { DSPMV_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

/// Owning CUDA event; timing events by default.
class cuda_event {
 public:
  explicit cuda_event(bool timing = true) {
    DSPMV_CUDA_CHECK(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  cuda_event(cuda_event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  cuda_event& operator=(cuda_event&&) = delete;
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  ~cuda_event() {
    if (e_) DSPMV_CUDA_CHECK_NOTHROW(cudaEventDestroy(e_));
  }
  cudaEvent_t get() const noexcept { return e_; }
  void record(cudaStream_t s) { DSPMV_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void synchronize() const { DSPMV_CUDA_CHECK(cudaEventSynchronize(e_)); }
  /// Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const cuda_event& start) const {
    float ms = 0;
    DSPMV_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace distspmv
