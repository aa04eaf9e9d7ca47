// The GPU split of a rank's rows (split_rows.hpp). Per chunk: upload, classify, count per row,
// compact (CUB). After the last chunk: scan, ghost ids, halo columns, diagonal.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <limits>
#include <string>

#include "common/cuda_check.hpp"
#include "dist/setup/setup_cuda.cuh"
#include "dist/setup/split_rows.hpp"

namespace distspmv::dist {
namespace {

using setup_cuda::block;
using setup_cuda::cub_temp;
using setup_cuda::grid_for;

/// One device array that can grow (chunks arrive before the total is known); its own
/// device_storage, so that growing frees the old block.
template <typename T>
struct growable {
  device_storage mem;
  T* data = nullptr;
  offset_type capacity = 0;

  void reserve(offset_type n, offset_type used) {
    if (n <= capacity) return;
    const offset_type grown = std::max(n, capacity + capacity / 4);
    device_storage next;
    T* p = static_cast<T*>(next.allocate_bytes(static_cast<std::size_t>(grown) * sizeof(T)));
    if (used > 0) DSPMV_CUDA_CHECK(cudaMemcpy(p, data, static_cast<std::size_t>(used) * sizeof(T), cudaMemcpyDeviceToDevice));
    mem = std::move(next);
    data = p;
    capacity = grown;
  }
};

/// is_local[e] = column e in [lo, hi); local_col[e] = its local id (0 for ghosts); value as V.
template <typename V>
__global__ void classify_kernel(offset_type n, const global_index_type* cols, const double* values, global_index_type lo,
                                global_index_type hi, std::uint8_t* is_local, std::uint8_t* is_ghost,
                                index_type* local_col, V* value_v) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e >= n) return;
  const global_index_type c = cols[e];
  const bool local = c >= lo && c < hi;
  is_local[e] = local;
  is_ghost[e] = !local;
  local_col[e] = local ? static_cast<index_type>(c - lo) : 0;
  value_v[e] = static_cast<V>(values[e]);
}

/// halo_len[r] = row length - local_len[r] for the chunk's rows.
__global__ void halo_length_kernel(global_index_type rows, const offset_type* row_ptr, const offset_type* local_len,
                                   offset_type* halo_len) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (r < rows) halo_len[r] = row_ptr[r + 1] - row_ptr[r] - local_len[r];
}

/// Boundary rows (halo_len > 0) in order, with their halo lengths; count in *count.
__global__ void mark_boundary_kernel(global_index_type rows, const offset_type* halo_len, std::uint8_t* flag) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (r < rows) flag[r] = halo_len[r] > 0;
}

__global__ void iota_kernel(global_index_type n, index_type* out) {
  const global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<index_type>(i);
}

/// Halo columns: global id -> position in the sorted ghost list (binary search).
__global__ void ghost_index_kernel(offset_type n, const global_index_type* cols, const global_index_type* ghosts,
                                   offset_type n_ghosts, index_type* out) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e >= n) return;
  const global_index_type c = cols[e];
  offset_type lo = 0, hi = n_ghosts;
  while (lo < hi) {
    const offset_type mid = (lo + hi) / 2;
    if (ghosts[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  out[e] = static_cast<index_type>(lo);
}

/// diag[r] = a(r, r) (binary search in the sorted local row), 0 where absent.
template <typename V>
__global__ void diagonal_kernel(global_index_type rows, const offset_type* row_ptr, const index_type* cols,
                                const V* values, V* diag) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  offset_type lo = row_ptr[r], hi = row_ptr[r + 1];
  while (lo < hi) {
    const offset_type mid = (lo + hi) / 2;
    if (cols[mid] < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  diag[r] = lo < row_ptr[r + 1] && cols[lo] == r ? values[lo] : V(0);
}

__global__ void negate_kernel(offset_type n, const std::uint8_t* in, std::uint8_t* out) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e < n) out[e] = !in[e];
}

template <typename V>
__global__ void gather_kernel(offset_type n, const offset_type* from, const V* in, V* out) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e < n) out[e] = in[from[e]];
}

template <typename T>
__global__ void convert_kernel(offset_type n, const T* in, double* out) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e < n) out[e] = static_cast<double>(in[e]);
}

/// Compacts `in[e]` where flag[e] into out; returns the count (synchronous).
template <typename T>
offset_type select_flagged(cub_temp& temp, const T* in, const std::uint8_t* flags, T* out, offset_type n,
                           offset_type* d_count) {
  if (n == 0) return 0;
  const int items = static_cast<int>(n);  // chunks and halos are checked to stay below 2^31
  temp.run([&](void* t, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(t, bytes, in, flags, out, d_count, items);
  });
  offset_type count = 0;
  DSPMV_CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
  return count;
}

template <typename T>
std::vector<T> download(const T* d, offset_type n) {
  return download_array(d, static_cast<std::size_t>(n));
}

void require_below_int(offset_type n, const char* what) {
  if (n > std::numeric_limits<int>::max())
    DSPMV_BAD_INPUT("GPU setup", what,
                    std::to_string(n) + " entries exceed the 2^31 - 1 of one CUB call; use more ranks");
}

}  // namespace

template <typename V>
std::vector<V> diagonal_on_gpu(const device_csr_view<V>& a) {
  device_storage mem;
  V* diag = static_cast<V*>(mem.allocate_bytes(std::max<std::size_t>(1, a.rows) * sizeof(V)));
  if (a.rows > 0) {
    diagonal_kernel<V><<<grid_for(a.rows), block>>>(a.rows, a.row_ptr, a.col_idx, a.values, diag);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  }
  return download(diag, a.rows);
}

template <typename V>
gpu_split<V> split_rows_on_gpu(row_range owned, const std::vector<row_range>& chunks, const row_reader& read,
                               const split_options& options) {
  const global_index_type rows = owned.size();
  if (rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT("GPU setup", "rows", std::to_string(rows) + " rows on one rank exceed 32-bit local ids; use more ranks");
  gpu_split<V> out;
  cub_temp temp;
  device_storage misc;
  auto* d_count = static_cast<offset_type*>(misc.allocate_bytes(sizeof(offset_type)));

  // A_local's row pointer holds the per-row owned counts until the final scan.
  device_storage row_mem;
  auto* row_ptr = static_cast<offset_type*>(row_mem.allocate_bytes((static_cast<std::size_t>(rows) + 1) * sizeof(offset_type)));
  DSPMV_CUDA_CHECK(cudaMemset(row_ptr, 0, sizeof(offset_type)));
  device_storage halo_len_mem;  // freed at the end, unlike the row pointer
  auto* halo_len =
      static_cast<offset_type*>(halo_len_mem.allocate_bytes(std::max<std::size_t>(1, rows) * sizeof(offset_type)));
  growable<index_type> local_col;
  growable<V> local_val;
  growable<global_index_type> halo_col;
  growable<V> halo_val;
  growable<std::uint8_t> kept_flags;
  if (options.nnz_hint > 0) {
    local_col.reserve(options.nnz_hint, 0);
    local_val.reserve(options.nnz_hint, 0);
  }
  offset_type n_local = 0, n_halo = 0;

  // Chunk scratch, sized by the largest chunk so far.
  struct scratch_t {
    device_storage mem;
    offset_type capacity = 0;
    global_index_type rows_capacity = 0;
    offset_type* row_ptr = nullptr;
    global_index_type* cols = nullptr;
    double* values = nullptr;
    std::uint8_t *is_local = nullptr, *is_ghost = nullptr;
    index_type* local_col = nullptr;
    V* value_v = nullptr;
    void fit(offset_type n, global_index_type r) {
      if (row_ptr != nullptr && n <= capacity && r <= rows_capacity) return;  // (also a chunk of 0 rows)
      mem = device_storage();
      capacity = std::max(n, capacity);
      rows_capacity = std::max(r, rows_capacity);
      const auto c = static_cast<std::size_t>(std::max<offset_type>(1, capacity));
      row_ptr = static_cast<offset_type*>(mem.allocate_bytes((static_cast<std::size_t>(rows_capacity) + 1) * sizeof(offset_type)));
      cols = static_cast<global_index_type*>(mem.allocate_bytes(c * sizeof(global_index_type)));
      values = static_cast<double*>(mem.allocate_bytes(c * sizeof(double)));
      is_local = static_cast<std::uint8_t*>(mem.allocate_bytes(c));
      is_ghost = static_cast<std::uint8_t*>(mem.allocate_bytes(c));
      local_col = static_cast<index_type*>(mem.allocate_bytes(c * sizeof(index_type)));
      value_v = static_cast<V*>(mem.allocate_bytes(c * sizeof(V)));
    }
  } s;

  const auto t_start = std::chrono::steady_clock::now();
  out.read_wait_s = for_each_chunk(chunks, read, [&](csr_matrix<double> chunk, std::size_t k) {
    const global_index_type r0 = chunks[k].begin - owned.begin;
    const global_index_type cr = chunk.rows;
    const offset_type cn = chunk.nnz();
    require_below_int(cn, "chunk");
    s.fit(cn, cr);
    const auto t_up = std::chrono::steady_clock::now();
    DSPMV_CUDA_CHECK(cudaMemcpy(s.row_ptr, chunk.row_ptr.data(), (cr + 1) * sizeof(offset_type), cudaMemcpyHostToDevice));
    DSPMV_CUDA_CHECK(cudaMemcpy(s.cols, chunk.col_idx.data(), cn * sizeof(global_index_type), cudaMemcpyHostToDevice));
    DSPMV_CUDA_CHECK(cudaMemcpy(s.values, chunk.values.data(), cn * sizeof(double), cudaMemcpyHostToDevice));
    out.upload_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t_up).count();
    chunk = {};
    if (cn > 0) {
      classify_kernel<V><<<grid_for(cn), block>>>(cn, s.cols, s.values, owned.begin, owned.end, s.is_local, s.is_ghost,
                                                  s.local_col, s.value_v);
      DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    }
    // Owned entries per row, straight into A_local's row pointer (scanned at the end).
    if (cr > 0) {
      offset_type* counts = row_ptr + 1 + r0;
      if (cn > 0) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceSegmentedReduce::Sum(t, bytes, s.is_local, counts, static_cast<int>(cr), s.row_ptr,
                                                 s.row_ptr + 1);
        });
      } else {
        DSPMV_CUDA_CHECK(cudaMemset(counts, 0, cr * sizeof(offset_type)));
      }
      halo_length_kernel<<<grid_for(cr), block>>>(cr, s.row_ptr, counts, halo_len + r0);
      DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    }
    if (cn == 0) return;
    if (options.keep_for_update) {
      kept_flags.reserve(out.nnz + cn, out.nnz);
      DSPMV_CUDA_CHECK(cudaMemcpy(kept_flags.data + out.nnz, s.is_local, cn, cudaMemcpyDeviceToDevice));
    }
    out.nnz += cn;
    // Owned entries to A_local, ghost entries to the halo list (both stay in row order).
    local_col.reserve(n_local + cn, n_local);
    local_val.reserve(n_local + cn, n_local);
    const offset_type got = select_flagged(temp, s.local_col, s.is_local, local_col.data + n_local, cn, d_count);
    select_flagged(temp, s.value_v, s.is_local, local_val.data + n_local, cn, d_count);
    n_local += got;
    if (got < cn) {
      halo_col.reserve(n_halo + (cn - got), n_halo);
      halo_val.reserve(n_halo + (cn - got), n_halo);
      select_flagged(temp, s.cols, s.is_ghost, halo_col.data + n_halo, cn, d_count);
      select_flagged(temp, s.value_v, s.is_ghost, halo_val.data + n_halo, cn, d_count);
      n_halo += cn - got;
    }
  });
  s = {};

  // A_local: scan the counts into offsets; the arrays become the device CSR (no copy).
  if (rows > 0)
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(t, bytes, row_ptr + 1, row_ptr + 1, static_cast<int>(rows));
    });
  auto& a = out.a_local;
  a.rows = rows;
  a.cols = rows;
  a.nnz = n_local;
  local_col.reserve(1, 0);  // never a null array, also for an empty block
  local_val.reserve(1, 0);
  a.row_ptr = row_ptr;
  a.col_idx = local_col.data;
  a.values = local_val.data;

  out.diagonal = diagonal_on_gpu(a.view());  // Jacobi, one value per row

  // Halo: ghost ids (sorted, unique), boundary rows, and the compressed halo block.
  require_below_int(n_halo, "halo entries");
  auto& h = out.a_halo;
  h.cols = 0;
  if (n_halo > 0) {
    device_storage hmem;
    auto* sorted = static_cast<global_index_type*>(hmem.allocate_bytes(n_halo * sizeof(global_index_type)));
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortKeys(t, bytes, halo_col.data, sorted, static_cast<int>(n_halo));
    });
    auto* unique = static_cast<global_index_type*>(hmem.allocate_bytes(n_halo * sizeof(global_index_type)));
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceSelect::Unique(t, bytes, sorted, unique, d_count, static_cast<int>(n_halo));
    });
    offset_type n_ghosts = 0;
    DSPMV_CUDA_CHECK(cudaMemcpy(&n_ghosts, d_count, sizeof n_ghosts, cudaMemcpyDeviceToHost));
    out.ghost_ids = download(unique, n_ghosts);
    auto* ghost_col = static_cast<index_type*>(hmem.allocate_bytes(n_halo * sizeof(index_type)));
    ghost_index_kernel<<<grid_for(n_halo), block>>>(n_halo, halo_col.data, unique, n_ghosts, ghost_col);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    h.col_idx = download(ghost_col, n_halo);
    auto* as_double = reinterpret_cast<double*>(sorted);  // n_halo doubles fit the sorted keys
    convert_kernel<V><<<grid_for(n_halo), block>>>(n_halo, halo_val.data, as_double);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    h.values = download(as_double, n_halo);
    h.cols = n_ghosts;

    // Boundary rows and their lengths.
    auto* flag = static_cast<std::uint8_t*>(hmem.allocate_bytes(rows));
    auto* ids = static_cast<index_type*>(hmem.allocate_bytes(rows * sizeof(index_type)));
    auto* boundary = static_cast<index_type*>(hmem.allocate_bytes(rows * sizeof(index_type)));
    auto* lengths = static_cast<offset_type*>(hmem.allocate_bytes(rows * sizeof(offset_type)));
    mark_boundary_kernel<<<grid_for(rows), block>>>(rows, halo_len, flag);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    iota_kernel<<<grid_for(rows), block>>>(rows, ids);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    const offset_type n_boundary = select_flagged(temp, ids, flag, boundary, rows, d_count);
    select_flagged(temp, halo_len, flag, lengths, rows, d_count);
    out.halo_rows = download(boundary, n_boundary);
    const auto len = download(lengths, n_boundary);
    h.rows = n_boundary;
    h.row_ptr.assign(static_cast<std::size_t>(n_boundary) + 1, 0);
    for (offset_type i = 0; i < n_boundary; ++i) h.row_ptr[i + 1] = h.row_ptr[i] + len[i];
  }
  halo_col = {};
  halo_val = {};

  a.storage.adopt(std::move(row_mem));
  a.storage.adopt(std::move(local_col.mem));
  a.storage.adopt(std::move(local_val.mem));
  if (options.keep_for_update) {
    // The pattern of A_local, and which entry went where.
    auto* kp = static_cast<offset_type*>(out.kept.allocate_bytes((static_cast<std::size_t>(rows) + 1) * sizeof(offset_type)));
    auto* kc = static_cast<index_type*>(out.kept.allocate_bytes(std::max<offset_type>(1, n_local) * sizeof(index_type)));
    DSPMV_CUDA_CHECK(cudaMemcpy(kp, a.row_ptr, (rows + 1) * sizeof(offset_type), cudaMemcpyDeviceToDevice));
    DSPMV_CUDA_CHECK(cudaMemcpy(kc, a.col_idx, n_local * sizeof(index_type), cudaMemcpyDeviceToDevice));
    out.kept_rows = rows;
    out.kept_local_nnz = n_local;
    out.kept_row_ptr = kp;
    out.kept_col_idx = kc;
    kept_flags.reserve(1, 0);
    out.entry_is_local = kept_flags.data;
    out.kept.adopt(std::move(kept_flags.mem));
  }
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
  out.split_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count() - out.read_wait_s -
                out.upload_s;
  return out;
}

template <typename V>
device_csr<V> split_values_on_gpu(const gpu_split<V>& split, const V* values, bool values_on_device,
                                  csr_matrix<double, index_type>& a_halo) {
  const offset_type n = split.nnz;
  const global_index_type rows = split.kept_rows;
  require_below_int(n, "entries");
  device_storage tmp;
  const V* d_values = values;
  if (!values_on_device) {
    V* v = static_cast<V*>(tmp.allocate_bytes(std::max<offset_type>(1, n) * sizeof(V)));
    DSPMV_CUDA_CHECK(cudaMemcpy(v, values, n * sizeof(V), cudaMemcpyHostToDevice));
    d_values = v;
  }
  const offset_type n_local = split.kept_local_nnz;
  auto a = allocate_device_csr<V>(rows, rows, n_local);
  DSPMV_CUDA_CHECK(cudaMemcpy(a.row_ptr, split.kept_row_ptr, (rows + 1) * sizeof(offset_type), cudaMemcpyDeviceToDevice));
  DSPMV_CUDA_CHECK(cudaMemcpy(a.col_idx, split.kept_col_idx, n_local * sizeof(index_type), cudaMemcpyDeviceToDevice));
  cub_temp temp;
  auto* d_count = static_cast<offset_type*>(tmp.allocate_bytes(sizeof(offset_type)));
  if (split.kept_gather == nullptr) {
    select_flagged(temp, d_values, split.entry_is_local, a.values, n, d_count);
  } else {  // a row order was applied: the read order's local values, then each to its new place
    V* read_order = static_cast<V*>(tmp.allocate_bytes(std::max<offset_type>(1, n_local) * sizeof(V)));
    select_flagged(temp, d_values, split.entry_is_local, read_order, n, d_count);
    if (n_local > 0) {
      gather_kernel<V><<<grid_for(n_local), block>>>(n_local, split.kept_gather, read_order, a.values);
      DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    }
  }
  const offset_type n_halo = n - n_local;
  if (n_halo > 0) {
    auto* ghost = static_cast<std::uint8_t*>(tmp.allocate_bytes(n));
    auto* halo = static_cast<V*>(tmp.allocate_bytes(n_halo * sizeof(V)));
    auto* as_double = static_cast<double*>(tmp.allocate_bytes(n_halo * sizeof(double)));
    negate_kernel<<<grid_for(n), block>>>(n, split.entry_is_local, ghost);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    select_flagged(temp, d_values, ghost, halo, n, d_count);
    convert_kernel<V><<<grid_for(n_halo), block>>>(n_halo, halo, as_double);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    a_halo.values = download(as_double, n_halo);
  }
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
  return a;
}

#define DSPMV_INSTANTIATE(V)                                                                                   \
  template gpu_split<V> split_rows_on_gpu(row_range, const std::vector<row_range>&, const row_reader&,         \
                                          const split_options&);                                             \
  template device_csr<V> split_values_on_gpu(const gpu_split<V>&, const V*, bool, csr_matrix<double, index_type>&); \
  template std::vector<V> diagonal_on_gpu(const device_csr_view<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::dist
