#include "local_kernels/device_timing.hpp"

#include "common/device_memory.hpp"

namespace distspmv {

std::vector<double> time_on_device(const std::function<void(cuda_stream_t)>& work, int warmup, int iters) {
  cuda_stream stream;
  for (int i = 0; i < warmup; ++i) work(stream.get());
  std::vector<cuda_event> events;
  events.reserve(iters + 1);
  for (int i = 0; i <= iters; ++i) events.emplace_back(true);
  events[0].record(stream.get());
  for (int i = 0; i < iters; ++i) {
    work(stream.get());
    events[i + 1].record(stream.get());
  }
  stream.synchronize();
  std::vector<double> us(iters);
  for (int i = 0; i < iters; ++i) us[i] = 1000.0 * events[i + 1].elapsed_ms_since(events[i]);
  return us;
}

double measure_copy_bandwidth_gbps(std::size_t bytes, int iters) {
  device_buffer<char> a(bytes), b(bytes);
  DSPMV_CUDA_CHECK(cudaMemset(a.data(), 1, bytes));
  const auto us = time_on_device(
      [&](cuda_stream_t s) { DSPMV_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, s)); },
      3, iters);
  return 2.0 * static_cast<double>(bytes) / (median(us) * 1e3);
}

std::string device_name() {
  int dev = 0;
  DSPMV_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  DSPMV_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}

}  // namespace distspmv
