// detail::spill_cap (sell_build.cpp) for a warp: the GPU builder's top_caps_kernel and the GPU
// selector statistics (format_selector_cuda.cu) both cap a window block's top slice with it.
#pragma once

#include "common/types.hpp"

namespace distspmv::sell::detail {

/// Lane l holds `len`, the l-th longest of a top slice's 32 lengths (longest first; 0 past the
/// rows). Returns to every lane the width that stores the slice in the fewest bytes, as spill_cap:
/// slot_bytes per slot of 32 * width, spill_bytes per entry past it and row_bytes per row with
/// such entries; among equal bytes the first lane's (the wider) width. The same sums as the host's.
__device__ __forceinline__ offset_type warp_spill_cap(offset_type len, offset_type slot_bytes, offset_type spill_bytes,
                                                      offset_type row_bytes) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  offset_type bytes = 32 * len * slot_bytes;
  for (int k = 0; k < 32; ++k) {
    const offset_type other = __shfl_sync(0xffffffffu, len, k);
    if (k < lane && other > len) bytes += (other - len) * spill_bytes + row_bytes;
  }
  int best = lane;
  for (int d = 16; d > 0; d /= 2) {  // the smallest bytes, the first lane among equals
    const offset_type b2 = __shfl_xor_sync(0xffffffffu, bytes, d);
    const int l2 = __shfl_xor_sync(0xffffffffu, best, d);
    if (b2 < bytes || (b2 == bytes && l2 < best)) {
      bytes = b2;
      best = l2;
    }
  }
  return __shfl_sync(0xffffffffu, len, best);
}

}  // namespace distspmv::sell::detail
