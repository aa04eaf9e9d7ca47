// The band matrix of big_matrix.hpp, generated on the GPU, and the reference SpMV and row
// comparison on it. Every kernel is a grid-stride loop over rows with 64-bit row and nonzero
// indices, so that blocks with more than 2^31 nonzeros (and, in principle, rows near 2^31) work
// with a grid of at most max_blocks blocks.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/cuda_check.hpp"
#include "common/device_memory.hpp"
#include "local_kernels/testing/big_matrix.hpp"

namespace distspmv::big_matrix {
namespace {

constexpr int block = 256;
constexpr global_index_type max_blocks = 1 << 18;

unsigned grid_for(global_index_type n) {
  return static_cast<unsigned>(std::clamp<global_index_type>((n + block - 1) / block, 1, max_blocks));
}

/// The offsets as a kernel argument (by value: 27 x 8 bytes).
struct band {
  long long offset[band_width];
};

/// splitmix64's finaliser: a cheap, well-mixed hash of 64 bits.
__device__ __forceinline__ std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The top 53 bits of a hash as a double in [-1, 1).
__device__ __forceinline__ double to_unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1p-52 - 1.0; }

/// hub_extra (big_matrix.hpp) on the GPU; `entries` is 0 where the hubs are off.
__device__ offset_type hub_entries_of(global_index_type r, global_index_type rows, global_index_type every,
                                      offset_type entries) {
  if (entries == 0 || r % every != 0) return 0;
  const offset_type room = rows - (r + 2);
  return room < 0 ? 0 : room < entries ? room : entries;
}

/// The hub rows' entries in rows below r: `entries` each, less what the last ones lose at the
/// matrix's end.
__device__ offset_type hub_entries_below(global_index_type r, global_index_type rows, global_index_type every,
                                         offset_type entries) {
  if (entries == 0) return 0;
  const global_index_type count = (r + every - 1) / every;  // hub rows 0, every, ... below r
  offset_type sum = count * entries;
  for (global_index_type k = count - 1; k >= 0; --k) {
    const offset_type got = hub_entries_of(k * every, rows, every, entries);
    if (got == entries) break;
    sum -= entries - got;
  }
  return sum;
}

/// Rows r in [0, rows] (r == rows writes only row_ptr[rows] = nnz). Row r's offset is computed,
/// not scanned: offset o contributes its valid rows [lo, hi) below r, lo = max(0, -o),
/// hi = min(rows, rows - o), and each hub row below r its run. Columns come out sorted because
/// the offsets are ascending and a hub row's run lies between the offsets 1 and n - 1.
__global__ void generate_kernel(band b, global_index_type rows, global_index_type hub_every, offset_type hub_entries,
                                offset_type* __restrict__ row_ptr, index_type* __restrict__ col_idx,
                                double* __restrict__ values) {
  for (global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; r <= rows;
       r += static_cast<global_index_type>(gridDim.x) * blockDim.x) {
    offset_type start = hub_entries_below(r, rows, hub_every, hub_entries);
    for (int k = 0; k < band_width; ++k) {
      const global_index_type o = b.offset[k];
      const global_index_type lo = o < 0 ? -o : 0, hi = o > 0 ? rows - o : rows;
      if (hi > lo) start += (r < lo ? lo : r > hi ? hi : r) - lo;
    }
    row_ptr[r] = start;
    if (r == rows) continue;
    offset_type p = start;
    auto emit = [&](global_index_type c) {
      col_idx[p] = static_cast<index_type>(c);
      values[p] = to_unit(mix((static_cast<std::uint64_t>(r) << 32) ^ static_cast<std::uint64_t>(c)));
      ++p;
    };
    offset_type run = hub_entries_of(r, rows, hub_every, hub_entries);  // left to emit
    for (int k = 0; k < band_width; ++k) {
      const global_index_type c = r + b.offset[k];
      if (run > 0 && b.offset[k] > 1)
        for (offset_type j = 0; j < run; ++j) emit(r + 2 + j);
      if (b.offset[k] > 1) run = 0;
      if (c < 0 || c >= rows) continue;
      emit(c);
    }
    for (offset_type j = 0; j < run; ++j) emit(r + 2 + j);  // (no offset past 1 in the matrix)
  }
}

__global__ void fill_hash_kernel(double* __restrict__ x, global_index_type n, std::uint64_t seed) {
  for (global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<global_index_type>(gridDim.x) * blockDim.x)
    x[i] = to_unit(mix(seed ^ mix(static_cast<std::uint64_t>(i))));
}

__global__ void fill_value_kernel(double* __restrict__ y, global_index_type n, double value) {
  for (global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<global_index_type>(gridDim.x) * blockDim.x)
    y[i] = value;
}

/// One thread per row, in column order, in double: deliberately the simplest possible SpMV.
__global__ void reference_kernel(global_index_type rows, const offset_type* __restrict__ row_ptr,
                                 const index_type* __restrict__ col_idx, const double* __restrict__ values,
                                 const double* __restrict__ x, double* __restrict__ y, double* __restrict__ abs_sum) {
  for (global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<global_index_type>(gridDim.x) * blockDim.x) {
    double s = 0, a = 0;
    for (offset_type p = row_ptr[r]; p < row_ptr[r + 1]; ++p) {
      const double t = values[p] * x[col_idx[p]];
      s += t;
      a += fabs(t);
    }
    y[r] = s;
    abs_sum[r] = a;
  }
}

/// What compare_kernel accumulates (one copy in device memory). worst_bits: the bit pattern of
/// a non-negative double orders like the double, so atomicMax on it is a max of doubles.
struct check_sums {
  unsigned long long bad_rows;
  unsigned long long worst_bits;
  unsigned long long first_bad_row;
};

__global__ void compare_kernel(const double* __restrict__ y, const double* __restrict__ y_ref,
                               const double* __restrict__ abs_sum, global_index_type rows, double tol,
                               check_sums* out) {
  // Whole warps step together (the loop bound is the warp's first row), so the shuffles below
  // see all 32 lanes; lanes past the last row count as ratio 0.
  const int lane = threadIdx.x % 32;
  for (global_index_type r0 = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x - lane;
       r0 < rows; r0 += static_cast<global_index_type>(gridDim.x) * blockDim.x) {
    const global_index_type r = r0 + lane;
    double ratio = 0;
    if (r < rows) {
      const double err = fabs(y[r] - y_ref[r]);
      // NaN or inf in y, or an error where the row's scale is 0, is the worst there is.
      if (!isfinite(y[r]))
        ratio = INFINITY;
      else if (err > 0)
        ratio = abs_sum[r] > 0 ? err / abs_sum[r] : INFINITY;
      if (ratio > tol) {
        atomicAdd(&out->bad_rows, 1ull);
        atomicMin(&out->first_bad_row, static_cast<unsigned long long>(r));
      }
    }
    // One atomic per warp for the maximum.
    unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(ratio));
    for (int d = 16; d > 0; d /= 2) bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, d));
    if (lane == 0) atomicMax(&out->worst_bits, bits);
  }
}

}  // namespace

device_csr<double> generate_band_csr(global_index_type rows, const hub_rows& hubs) {
  if (rows < 1 || rows > INT_MAX)
    DSPMV_BAD_INPUT("big_matrix", "rows " + std::to_string(rows), "must be in [1, 2^31 - 1] (32-bit columns)");
  band b{};
  const auto offsets = band_offsets(rows);
  std::copy(offsets.begin(), offsets.end(), b.offset);
  // hub_extra is 0 for row 0 only where the hubs are off (or the matrix has at most 2 rows).
  const offset_type hub_entries = hub_extra(0, rows, hubs) > 0 ? hubs.entries : 0;
  device_csr<double> a = allocate_device_csr<double>(rows, rows, band_nnz(rows, hubs));
  generate_kernel<<<grid_for(rows + 1), block, 0, nullptr>>>(b, rows, hubs.every, hub_entries, a.row_ptr, a.col_idx,
                                                             a.values);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
  return a;
}

void fill_hash(double* x, global_index_type n, std::uint64_t seed) {
  fill_hash_kernel<<<grid_for(n), block, 0, nullptr>>>(x, n, seed);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
}

void fill_value(double* y, global_index_type n, double value) {
  fill_value_kernel<<<grid_for(n), block, 0, nullptr>>>(y, n, value);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
}

void reference_spmv(const device_csr_view<double>& a, const double* x, double* y, double* abs_sum) {
  reference_kernel<<<grid_for(a.rows), block, 0, nullptr>>>(a.rows, a.row_ptr, a.col_idx, a.values, x, y, abs_sum);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
}

row_check compare_rows(const double* y, const double* y_ref, const double* abs_sum, global_index_type rows,
                       double tol) {
  device_buffer<check_sums> sums(1);
  const check_sums init{0, 0, ULLONG_MAX};
  DSPMV_CUDA_CHECK(cudaMemcpy(sums.data(), &init, sizeof init, cudaMemcpyHostToDevice));
  compare_kernel<<<grid_for(rows), block, 0, nullptr>>>(y, y_ref, abs_sum, rows, tol, sums.data());
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  check_sums h{};
  DSPMV_CUDA_CHECK(cudaMemcpy(&h, sums.data(), sizeof h, cudaMemcpyDeviceToHost));
  row_check c;
  c.bad_rows = static_cast<offset_type>(h.bad_rows);
  std::uint64_t bits = h.worst_bits;
  static_assert(sizeof(double) == sizeof(std::uint64_t));
  std::memcpy(&c.worst, &bits, sizeof bits);
  c.first_bad_row = h.bad_rows > 0 ? static_cast<global_index_type>(h.first_bad_row) : -1;
  return c;
}

}  // namespace distspmv::big_matrix
