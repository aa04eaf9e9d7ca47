// The generic local_operator over one storage format, so that a format folder only provides
// its traits (see csr/csr.hpp for the pattern):
//
//   struct FORMAT_traits {
//     using params = ...;
//     template <class V> using matrix = ...;      // owning host struct-of-arrays, has .stats
//     template <class V> using view = ...;        // trivially copyable pointers + sizes
//     template <class V, class Map> static view<V> view_of(const matrix<V>&, Map&& map);
//   };
//   and free functions build, spmv_reference(view, ...), spmv_cuda(view, ...) in the format's
//   namespace, which apply() finds by argument-dependent lookup on the view type.
//
// A format built on the GPU (DESIGN.md §11) has no host copy at all: its GPU builder,
//
//   template <class V> device_built<FORMAT_view<V>> build_cuda(device_csr<V>&& a, const params&);
//
// in the format's folder (<fmt>_build_cuda.cu), returns the view, the device arrays behind it and
// the statistics, and device_format_operator applies it. The arrays are those build() makes from
// download_csr(a), bitwise (the tests compare them); a builder that keeps the CSR arrays as they
// are takes them over from `a` instead of copying.
//
// view_of receives `map`, which turns each host std::vector into the pointer the view stores:
// its data() for the host backend, a device copy for the CUDA backend. So one function says
// which arrays a view holds, for both backends.
#pragma once

#include <string>
#include <utility>

#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv {

/// local_operator over a format described by Traits; the SpMV calls resolve statically to the
/// format's free functions.
template <typename Traits, typename V>
class format_operator final : public local_operator<V> {
 public:
  using matrix_type = typename Traits::template matrix<V>;
  using view_type = typename Traits::template view<V>;

  format_operator(std::string name, matrix_type m, backend where) : name_(std::move(name)), m_(std::move(m)), where_(where) {
    if (where_ == backend::host) {
      view_ = Traits::view_of(m_, [](const auto& vec) { return vec.data(); });
    } else {
      view_ = Traits::view_of(m_, [this](const auto& vec) { return storage_.upload(vec); });
    }
  }

  std::string name() const override { return name_; }
  backend where() const override { return where_; }
  global_index_type rows() const override { return m_.rows; }
  global_index_type cols() const override { return m_.cols; }
  offset_type nnz() const override { return m_.nnz; }
  const format_stats& stats() const override { return m_.stats; }

  void apply(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) const override {
    if (where_ == backend::host)
      spmv_reference(view_, alpha, x, beta, y);
    else
      spmv_cuda(view_, alpha, x, beta, y, stream);
  }

  const matrix_type& matrix() const noexcept { return m_; }

 private:
  std::string name_;
  matrix_type m_;
  backend where_;
  device_storage storage_;
  view_type view_{};
};

/// What a GPU builder returns: the kernel's view, the device arrays it points into, statistics.
template <typename View>
struct device_built {
  View view{};
  device_storage storage;
  format_stats stats;
};

/// local_operator over a format built on the GPU: device arrays only.
template <typename Traits, typename V>
class device_format_operator final : public local_operator<V> {
 public:
  using view_type = typename Traits::template view<V>;

  device_format_operator(std::string name, global_index_type rows, global_index_type cols, offset_type nnz,
                         device_built<view_type> built)
      : name_(std::move(name)), rows_(rows), cols_(cols), nnz_(nnz), built_(std::move(built)) {}

  std::string name() const override { return name_; }
  backend where() const override { return backend::cuda; }
  global_index_type rows() const override { return rows_; }
  global_index_type cols() const override { return cols_; }
  offset_type nnz() const override { return nnz_; }
  const format_stats& stats() const override { return built_.stats; }

  void apply(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) const override {
    spmv_cuda(built_.view, alpha, x, beta, y, stream);
  }

  const view_type& view() const noexcept { return built_.view; }

 private:
  std::string name_;
  global_index_type rows_, cols_;
  offset_type nnz_;
  device_built<view_type> built_;
};

}  // namespace distspmv
