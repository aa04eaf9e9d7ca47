// The four index names used everywhere (STYLE.md §5, DESIGN.md §6).
#pragma once

#include <cstdint>

/// CUDA's stream type, declared at global scope exactly as cuda_runtime.h does, so that plain
/// C++ files and .cu files name the same type (inside namespace distspmv it would be another one).
struct CUstream_st;

namespace distspmv {

/// Local column index on a rank (owned columns first, ghosts after): 32 bits.
using index_type = std::int32_t;
/// Row offsets and nonzero counts: 64 bits (one GPU holds more than 2^31 nonzeros).
using offset_type = std::int64_t;
/// Global row and column ids in setup and I/O.
using global_index_type = std::int64_t;

/// Half-open range of global rows [begin, end).
struct row_range {
  global_index_type begin = 0;
  global_index_type end = 0;
  global_index_type size() const noexcept { return end - begin; }
  bool operator==(const row_range& o) const noexcept { return begin == o.begin && end == o.end; }
};

/// Opaque CUDA stream, so that plain C++ headers need no CUDA header (Ginkgo's habit).
using cuda_stream_t = ::CUstream_st*;

}  // namespace distspmv
