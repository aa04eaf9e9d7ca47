// cuSPARSE CSR (default, ALG1, ALG2) and sliced-ELL baselines behind local_operator.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
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

template <typename V>
class cusparse_operator final : public local_operator<V> {
 public:
  cusparse_operator(std::string name, const csr_matrix<V, index_type>& a, algorithm alg)
      : name_(std::move(name)), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
    DSPMV_CUSPARSE_CHECK(cusparseCreate(&handle_));
    // A stream-ordered handle: apply() sets the caller's stream before each call.
    if (alg == algorithm::sell)
      create_sell(a);
    else
      create_csr(a);
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
    stats_.stored_bytes = storage_.bytes() - buffer_bytes;
    stats_.params = "alg=" + name_;
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
  // cuSPARSE wants row offsets and columns of one index width: 32-bit while nnz fits, else
  // 64-bit columns too (CUDA 13: "different index sizes ... is not currently supported").
  void create_csr(const csr_matrix<V, index_type>& a) {
    const auto* values = storage_.upload(a.values);
    if (nnz_ <= std::numeric_limits<index_type>::max()) {
      const std::vector<index_type> row_ptr32(a.row_ptr.begin(), a.row_ptr.end());
      const auto* row_ptr = storage_.upload(row_ptr32);
      const auto* col_idx = storage_.upload(a.col_idx);
      DSPMV_CUSPARSE_CHECK(cusparseCreateCsr(&mat_, rows_, cols_, nnz_, const_cast<index_type*>(row_ptr),
                                             const_cast<index_type*>(col_idx), const_cast<V*>(values),
                                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                             data_type<V>()));
    } else {
      const std::vector<offset_type> col_idx64(a.col_idx.begin(), a.col_idx.end());
      const auto* row_ptr = storage_.upload(a.row_ptr);
      const auto* col_idx = storage_.upload(col_idx64);
      DSPMV_CUSPARSE_CHECK(cusparseCreateCsr(&mat_, rows_, cols_, nnz_, const_cast<offset_type*>(row_ptr),
                                             const_cast<offset_type*>(col_idx), const_cast<V*>(values),
                                             CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO,
                                             data_type<V>()));
    }
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

}  // namespace

template <typename V>
std::unique_ptr<local_operator<V>> make_operator(const std::string& name, const csr_matrix<V, index_type>& a,
                                                 algorithm alg, backend where) {
  if (where != backend::cuda) DSPMV_BAD_INPUT("--format", name, "cuSPARSE formats need --backend cuda");
  return std::make_unique<cusparse_operator<V>>(name, a, alg);
}

template std::unique_ptr<local_operator<float>> make_operator(const std::string&, const csr_matrix<float, index_type>&,
                                                              algorithm, backend);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&,
                                                               const csr_matrix<double, index_type>&, algorithm,
                                                               backend);

}  // namespace distspmv::cusparse
