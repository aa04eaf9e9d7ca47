// Applying a row order to a GPU split (gpu_order.hpp): A_local's rows move to their new places,
// its columns get the new ids and are sorted within each row (CUB's segmented sort), and the
// host-side pieces (diagonal, halo rows) and the kept update map follow.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "dist/setup/gpu_order.hpp"
#include "dist/setup/setup_cuda.cuh"

namespace distspmv::dist {
namespace {

using namespace setup_cuda;

__global__ void new_position_kernel(global_index_type n, const index_type* order, index_type* new_pos,
                                    const offset_type* row_ptr, offset_type* new_len) {
  const global_index_type k = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const index_type old = order[k];
  new_pos[old] = static_cast<index_type>(k);
  new_len[k] = row_ptr[old + 1] - row_ptr[old];
}

/// One thread per new entry: its row (binary search), the old entry it comes from, its new column.
__global__ void gather_entries_kernel(global_index_type n, offset_type nnz, const offset_type* new_row_ptr,
                                      const offset_type* row_ptr, const index_type* order, const index_type* col,
                                      const index_type* new_pos, index_type* new_col, offset_type* source) {
  const offset_type j = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (j >= nnz) return;
  offset_type lo = 0, hi = n;  // the row k with new_row_ptr[k] <= j < new_row_ptr[k + 1]
  while (lo < hi) {
    const offset_type mid = (lo + hi) / 2;
    if (new_row_ptr[mid + 1] <= j)
      lo = mid + 1;
    else
      hi = mid;
  }
  const offset_type e = row_ptr[order[lo]] + (j - new_row_ptr[lo]);
  new_col[j] = new_pos[col[e]];
  source[j] = e;
}

template <typename V>
__global__ void gather_values_kernel(offset_type nnz, const offset_type* source, const V* in, V* out) {
  const offset_type j = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (j < nnz) out[j] = in[source[j]];
}

/// The block's rows and columns renumbered by `order`; `source` (nnz entries, in `source_mem`)
/// gets the old entry of each new one.
template <typename V>
device_csr<V> permute_block(const device_csr_view<V>& a, const std::vector<index_type>& order,
                            device_storage& source_mem, offset_type** source_out) {
  const global_index_type n = a.rows;
  const offset_type nnz = a.nnz;
  DSPMV_REQUIRE(static_cast<global_index_type>(order.size()) == n,
                "permute_split_on_gpu: the order has " + std::to_string(order.size()) + " rows, the block " +
                    std::to_string(n));
  require_below_int(nnz, "local entries");
  require_below_int(n + 1, "rows");
  device_storage mem;
  cub_temp temp;
  auto out = allocate_device_csr<V>(n, n, nnz);
  DSPMV_CUDA_CHECK(cudaMemset(out.row_ptr, 0, sizeof(offset_type)));
  *source_out = nullptr;
  if (n == 0) return out;
  const index_type* d_order = mem.upload(order);
  auto* new_pos = scratch<index_type>(mem, n);
  // The new row pointer (lengths in new order, scanned), then entries gathered and sorted per row.
  new_position_kernel<<<grid_for(n), block>>>(n, d_order, new_pos, a.row_ptr, out.row_ptr + 1);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  temp.run([&](void* t, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(t, bytes, out.row_ptr + 1, out.row_ptr + 1, static_cast<int>(n));
  });
  if (nnz > 0) {
    auto* source_sorted = scratch<offset_type>(source_mem, nnz);
    auto* col = scratch<index_type>(mem, nnz);
    auto* source = scratch<offset_type>(mem, nnz);
    gather_entries_kernel<<<grid_for(nnz), block>>>(n, nnz, out.row_ptr, a.row_ptr, d_order, a.col_idx, new_pos, col,
                                                   source);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::SortPairs(t, bytes, col, out.col_idx, source, source_sorted,
                                                 static_cast<int>(nnz), static_cast<int>(n), out.row_ptr,
                                                 out.row_ptr + 1);
    });
    gather_values_kernel<V><<<grid_for(nnz), block>>>(nnz, source_sorted, a.values, out.values);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    *source_out = source_sorted;
  }
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

}  // namespace

template <typename V>
device_csr<V> permuted_csr_on_gpu(const device_csr_view<V>& a, const std::vector<index_type>& order) {
  device_storage source_mem;
  offset_type* source = nullptr;
  return permute_block(a, order, source_mem, &source);
}

template <typename V>
device_csr<V> copy_csr_on_gpu(const device_csr_view<V>& a) {
  auto out = allocate_device_csr<V>(a.rows, a.cols, a.nnz);
  DSPMV_CUDA_CHECK(cudaMemcpy(out.row_ptr, a.row_ptr, (a.rows + 1) * sizeof(offset_type), cudaMemcpyDeviceToDevice));
  if (a.nnz > 0) {
    DSPMV_CUDA_CHECK(cudaMemcpy(out.col_idx, a.col_idx, a.nnz * sizeof(index_type), cudaMemcpyDeviceToDevice));
    DSPMV_CUDA_CHECK(cudaMemcpy(out.values, a.values, a.nnz * sizeof(V), cudaMemcpyDeviceToDevice));
  }
  return out;
}

template <typename V>
void permute_split_on_gpu(gpu_split<V>& s, const std::vector<index_type>& order) {
  const global_index_type n = s.a_local.rows;
  device_storage kept_gather;  // the old entry of each new entry: the update map's last step
  offset_type* source = nullptr;
  auto out = permute_block(s.a_local.view(), order, kept_gather, &source);
  if (n == 0) return;
  const offset_type nnz = out.nnz;

  // The kept update map: the new pattern, and where each new entry's value comes from.
  if (s.kept_rows > 0) {
    device_storage kept;
    auto* kp = scratch<offset_type>(kept, n + 1);
    auto* kc = scratch<index_type>(kept, nnz);
    DSPMV_CUDA_CHECK(cudaMemcpy(kp, out.row_ptr, (n + 1) * sizeof(offset_type), cudaMemcpyDeviceToDevice));
    if (nnz > 0) DSPMV_CUDA_CHECK(cudaMemcpy(kc, out.col_idx, nnz * sizeof(index_type), cudaMemcpyDeviceToDevice));
    kept.adopt(std::move(kept_gather));
    // Free the old pattern (every other kept array stays where it is).
    s.kept.free_allocation(s.kept_row_ptr);
    s.kept.free_allocation(s.kept_col_idx);
    s.kept.adopt(std::move(kept));
    s.kept_row_ptr = kp;
    s.kept_col_idx = kc;
    s.kept_gather = source;
  }
  s.a_local = std::move(out);

  // Host-side pieces: the diagonal in the new order, the halo rows renamed.
  std::vector<V> diagonal(s.diagonal.size());
  for (global_index_type k = 0; k < n; ++k) diagonal[k] = s.diagonal[order[k]];
  s.diagonal = std::move(diagonal);
  std::vector<index_type> new_of(static_cast<std::size_t>(n));
  for (global_index_type k = 0; k < n; ++k) new_of[order[k]] = static_cast<index_type>(k);
  for (auto& r : s.halo_rows) r = new_of[r];
}

#define DSPMV_INSTANTIATE(V)                                                                       \
  template void permute_split_on_gpu(gpu_split<V>&, const std::vector<index_type>&);              \
  template device_csr<V> permuted_csr_on_gpu(const device_csr_view<V>&, const std::vector<index_type>&); \
  template device_csr<V> copy_csr_on_gpu(const device_csr_view<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::dist
