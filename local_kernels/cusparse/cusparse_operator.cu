// cuSPARSE CSR (default, ALG1, ALG2) and sliced-ELL baselines behind local_operator.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cusparse_check.hpp"
#include "local_kernels/cusparse/cusparse.hpp"
#include "local_kernels/device_storage.hpp"

namespace distspmv::cusparse {
namespace {

template <typename V>
constexpr cudaDataType data_type() {
  return std::is_same_v<V, double> ? CUDA_R_64F : CUDA_R_32F;
}

/// Slice size of the sliced-ELL baseline (what DESIGN.md §10's anchors used).
constexpr int sell_slice = 32;

/// Threads per block and grid cap of the index-width conversions' grid-stride loop: 4096 blocks
/// of 256 threads are about four times what an H100 holds at once (132 SMs x 2048 threads), so
/// the loop fills the GPU and the grid stays far below the launch limit for any length.
constexpr int convert_threads = 256;
constexpr offset_type convert_max_blocks = 4096;

/// to[i] = from[i] for i < n: the row offsets narrowed to 32 bits, or the columns widened to 64.
template <typename To, typename From>
__global__ void convert_kernel(offset_type n, const From* __restrict__ from, To* __restrict__ to) {
  const offset_type stride = static_cast<offset_type>(gridDim.x) * blockDim.x;
  for (offset_type i = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x; i < n; i += stride)
    to[i] = static_cast<To>(from[i]);
}

/// A device copy of from[0, n) as To, in `storage`; on the default stream (the constructor
/// synchronizes before returning).
template <typename To, typename From>
To* converted_copy(const From* from, offset_type n, device_storage& storage) {
  auto* to = static_cast<To*>(storage.allocate_bytes(static_cast<std::size_t>(n) * sizeof(To)));
  if (n == 0) return to;
  const offset_type blocks = std::min(convert_max_blocks, (n + convert_threads - 1) / convert_threads);
  convert_kernel<<<static_cast<unsigned>(blocks), convert_threads, 0, nullptr>>>(n, from, to);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  return to;
}

template <typename V>
class cusparse_operator final : public local_operator<V> {
 public:
  /// From a host CSR: the arrays are uploaded (sliced ELL: laid out on the host first).
  cusparse_operator(std::string name, const csr_matrix<V, index_type>& a, algorithm alg)
      : cusparse_operator(std::move(name), a.rows, a.cols, a.nnz()) {
    if (alg == algorithm::sell)
      create_sell(a);
    else
      create_csr(a);
    prepare(alg);
  }

  /// From a device CSR whose arrays it takes over (CSR algorithms).
  cusparse_operator(std::string name, device_csr<V>&& a, algorithm alg)
      : cusparse_operator(std::move(name), a.rows, a.cols, a.nnz) {
    if (alg == algorithm::sell) {
      // The sliced-ELL layout is built on the host: a host copy of the block, acceptable for a
      // baseline that is only measured. The device CSR is freed before the padded arrays go up.
      const csr_matrix<V, index_type> host = download_csr(a.view());
      a = {};
      create_sell(host);
    } else {
      create_csr(std::move(a));
    }
    prepare(alg);
  }

  ~cusparse_operator() override {
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
    if (mat_) cusparseDestroySpMat(mat_);
    if (handle_) cusparseDestroy(handle_);
  }

  std::string name() const override { return name_; }
  backend where() const override { return backend::cuda; }
  global_index_type rows() const override { return rows_; }
  global_index_type cols() const override { return cols_; }
  offset_type nnz() const override { return nnz_; }
  const format_stats& stats() const override { return stats_; }

  void apply(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) const override {
    if (rows_ == 0) return;
    if (nnz_ == 0 || cols_ == 0) {  // cuSPARSE rejects empty matrices on some versions
      scale_only(alpha, beta, y, stream);
      return;
    }
    DSPMV_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    DSPMV_CUSPARSE_CHECK(cusparseDnVecSetValues(x_, const_cast<V*>(x)));
    DSPMV_CUSPARSE_CHECK(cusparseDnVecSetValues(y_, y));
    DSPMV_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, x_, &beta, y_,
                                      data_type<V>(), alg_, buffer_));
  }

 private:
  /// The shape and the handle, shared by both constructors; a constructor that delegates here is
  /// complete once this returns, so the destructor frees the handle if the rest throws.
  cusparse_operator(std::string name, global_index_type rows, global_index_type cols, offset_type nnz)
      : name_(std::move(name)), rows_(rows), cols_(cols), nnz_(nnz) {
    // A stream-ordered handle: apply() sets the caller's stream before each call.
    DSPMV_CUSPARSE_CHECK(cusparseCreate(&handle_));
  }

  /// After the matrix descriptor: the vector descriptors, the external buffer, the SpMV
  /// preprocessing and the statistics. Waits for the GPU before returning.
  void prepare(algorithm alg) {
    alg_ = alg == algorithm::csr_alg1   ? CUSPARSE_SPMV_CSR_ALG1
           : alg == algorithm::csr_alg2 ? CUSPARSE_SPMV_CSR_ALG2
           : alg == algorithm::sell     ? CUSPARSE_SPMV_SELL_ALG1
                                        : CUSPARSE_SPMV_ALG_DEFAULT;
    // Dense vector descriptors with placeholder pointers; apply() repoints them (no allocation).
    x_dummy_ = static_cast<V*>(storage_.allocate_bytes(std::max<std::size_t>(1, cols_) * sizeof(V)));
    y_dummy_ = static_cast<V*>(storage_.allocate_bytes(std::max<std::size_t>(1, rows_) * sizeof(V)));
    DSPMV_CUSPARSE_CHECK(cusparseCreateDnVec(&x_, cols_, x_dummy_, data_type<V>()));
    DSPMV_CUSPARSE_CHECK(cusparseCreateDnVec(&y_, rows_, y_dummy_, data_type<V>()));
    const V one = 1, zero = 0;
    std::size_t buffer_bytes = 0;
    DSPMV_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, x_, &zero, y_,
                                                 data_type<V>(), alg_, &buffer_bytes));
    buffer_ = storage_.allocate_bytes(std::max<std::size_t>(buffer_bytes, 16));
    if (nnz_ > 0)
      DSPMV_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, x_, &zero,
                                                   y_, data_type<V>(), alg_, buffer_));
    // Every byte the operator holds but the buffer (built from a device CSR: also its int64 row
    // offsets, or its int32 columns past 2^31 nonzeros, which share one allocation set with the
    // arrays in use and are freed with them).
    stats_.stored_bytes = storage_.bytes() - buffer_bytes;
    stats_.params = "alg=" + name_;
    DSPMV_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }

  // cuSPARSE wants row offsets and columns of one index width: 32-bit while nnz fits, else
  // 64-bit columns too (CUDA 13: "different index sizes ... is not currently supported").
  bool index32() const { return nnz_ <= std::numeric_limits<index_type>::max(); }

  void create_csr(const csr_matrix<V, index_type>& a) {
    const V* values = storage_.upload(a.values);
    if (index32()) {
      const std::vector<index_type> row_ptr32(a.row_ptr.begin(), a.row_ptr.end());
      set_csr(storage_.upload(row_ptr32), storage_.upload(a.col_idx), values, CUSPARSE_INDEX_32I);
    } else {
      const std::vector<offset_type> col_idx64(a.col_idx.begin(), a.col_idx.end());
      set_csr(storage_.upload(a.row_ptr), storage_.upload(col_idx64), values, CUSPARSE_INDEX_64I);
    }
  }

  /// Takes over a's arrays; the index width cuSPARSE needs is converted on the GPU.
  void create_csr(device_csr<V>&& a) {
    storage_.adopt(std::move(a.storage));
    if (index32())
      set_csr(converted_copy<index_type>(a.row_ptr, rows_ + 1, storage_), a.col_idx, a.values, CUSPARSE_INDEX_32I);
    else
      set_csr(a.row_ptr, converted_copy<offset_type>(a.col_idx, nnz_, storage_), a.values, CUSPARSE_INDEX_64I);
    a = {};
  }

  /// The CSR descriptor over device arrays (row offsets and columns of width `index`).
  void set_csr(const void* row_ptr, const void* col_idx, const V* values, cusparseIndexType_t index) {
    DSPMV_CUSPARSE_CHECK(cusparseCreateCsr(&mat_, rows_, cols_, nnz_, const_cast<void*>(row_ptr),
                                           const_cast<void*>(col_idx), const_cast<V*>(values), index, index,
                                           CUSPARSE_INDEX_BASE_ZERO, data_type<V>()));
    stats_.padding_ratio = 1.0;
  }

  // Sliced ELL, column-major within each slice, padded with column -1 (cuSPARSE's sentinel).
  void create_sell(const csr_matrix<V, index_type>& a) {
    const global_index_type slices = (rows_ + sell_slice - 1) / sell_slice;
    std::vector<index_type> slice_offsets(slices + 1, 0);
    for (global_index_type s = 0; s < slices; ++s) {
      offset_type width = 0;
      for (global_index_type r = s * sell_slice; r < std::min<global_index_type>(rows_, (s + 1) * sell_slice); ++r)
        width = std::max(width, a.row_length(r));
      const offset_type next = slice_offsets[s] + width * sell_slice;
      if (next > std::numeric_limits<index_type>::max())
        DSPMV_BAD_INPUT("cusparse-sell", "", "padded size exceeds 2^31 entries (cuSPARSE SELL uses 32-bit offsets)");
      slice_offsets[s + 1] = static_cast<index_type>(next);
    }
    const offset_type stored = slice_offsets[slices];
    std::vector<index_type> col(stored, -1);
    std::vector<V> val(stored, V(0));
    for (global_index_type r = 0; r < rows_; ++r) {
      const global_index_type s = r / sell_slice, lane = r % sell_slice;
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        const offset_type pos = slice_offsets[s] + (k - a.row_ptr[r]) * sell_slice + lane;
        col[pos] = a.col_idx[k];
        val[pos] = a.values[k];
      }
    }
    const auto* d_off = storage_.upload(slice_offsets);
    const auto* d_col = storage_.upload(col);
    const auto* d_val = storage_.upload(val);
    DSPMV_CUSPARSE_CHECK(cusparseCreateSlicedEll(&mat_, rows_, cols_, nnz_, stored, sell_slice,
                                                 const_cast<index_type*>(d_off), const_cast<index_type*>(d_col),
                                                 const_cast<V*>(d_val), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_BASE_ZERO, data_type<V>()));
    stats_.padding_ratio = nnz_ > 0 ? static_cast<double>(stored) / static_cast<double>(nnz_) : 1.0;
  }

  void scale_only(V alpha, V beta, V* y, cuda_stream_t stream) const;

  std::string name_;
  global_index_type rows_, cols_;
  offset_type nnz_;
  format_stats stats_;
  device_storage storage_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  cusparseSpMVAlg_t alg_ = CUSPARSE_SPMV_ALG_DEFAULT;
  V* x_dummy_ = nullptr;
  V* y_dummy_ = nullptr;
  void* buffer_ = nullptr;
};

template <typename V>
__global__ void scale_kernel(global_index_type n, V beta, V* y) {
  const global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = beta == V(0) ? V(0) : beta * y[i];
}

template <typename V>
void cusparse_operator<V>::scale_only(V, V beta, V* y, cuda_stream_t stream) const {
  scale_kernel<<<static_cast<unsigned>((rows_ + 255) / 256), 256, 0, stream>>>(rows_, beta, y);
  DSPMV_CUDA_CHECK_LAUNCH(stream);
}

/// cuSPARSE before 12.8 fails its CSR SpMV with CUSPARSE_STATUS_INTERNAL_ERROR past 2^31
/// nonzeros, 64-bit indices or not (measured: cuSPARSE 12.6.3 on an H100, 2.16e9 nonzeros, every
/// algorithm; cuSPARSE 12.8 works, cupy/cupy#9490). Such a block is refused before anything is
/// allocated, with what to do instead.
void require_supported_nnz(const std::string& name, offset_type nnz) {
  if (nnz <= std::numeric_limits<index_type>::max()) return;
  int major = 0, minor = 0;
  DSPMV_CUSPARSE_CHECK(cusparseGetProperty(MAJOR_VERSION, &major));
  DSPMV_CUSPARSE_CHECK(cusparseGetProperty(MINOR_VERSION, &minor));
  if (major > 12 || (major == 12 && minor >= 8)) return;
  DSPMV_BAD_INPUT("--format", name,
                  "this rank's block has " + std::to_string(nnz) + " nonzeros, and cuSPARSE " + std::to_string(major) +
                      "." + std::to_string(minor) +
                      " fails its SpMV past 2^31 nonzeros (fixed in cuSPARSE 12.8); use --format csr or "
                      "csr-split (the same CSR, our kernels), or more ranks");
}

}  // namespace

template <typename V>
std::unique_ptr<local_operator<V>> make_operator(const std::string& name, const csr_matrix<V, index_type>& a,
                                                 algorithm alg, backend where) {
  if (where != backend::cuda) DSPMV_BAD_INPUT("--format", name, "cuSPARSE formats need --backend cuda");
  require_supported_nnz(name, a.nnz());
  return std::make_unique<cusparse_operator<V>>(name, a, alg);
}

template <typename V>
std::unique_ptr<local_operator<V>> make_operator(const std::string& name, device_csr<V>&& a, algorithm alg) {
  require_supported_nnz(name, a.nnz);
  return std::make_unique<cusparse_operator<V>>(name, std::move(a), alg);
}

template std::unique_ptr<local_operator<float>> make_operator(const std::string&, const csr_matrix<float, index_type>&,
                                                              algorithm, backend);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&,
                                                               const csr_matrix<double, index_type>&, algorithm,
                                                               backend);
template std::unique_ptr<local_operator<float>> make_operator(const std::string&, device_csr<float>&&, algorithm);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&, device_csr<double>&&, algorithm);

}  // namespace distspmv::cusparse
