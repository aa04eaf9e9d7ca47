// Timing helpers for benchmarks: CUDA events around work on one stream, and the device-to-device
// copy bandwidth that effective bandwidths are reported against (DESIGN.md §10). Plain C++
// interface; device_timing.cu implements it, the CUDA stubs throw without CUDA.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace distspmv {

/// Runs `work(stream)` warmup times, then `iters` times each between two CUDA events on a
/// private stream; returns the per-iteration times in microseconds.
std::vector<double> time_on_device(const std::function<void(cuda_stream_t)>& work, int warmup, int iters);

/// Device-to-device cudaMemcpy bandwidth in GB/s (bytes read + bytes written), median of
/// `iters` copies of `bytes` bytes.
double measure_copy_bandwidth_gbps(std::size_t bytes, int iters);

/// Name of the current CUDA device ("" without CUDA).
std::string device_name();

/// Median of a sample (copied, so the caller's order is kept).
double median(std::vector<double> v);

}  // namespace distspmv
