#include "local_kernels/device_csr.hpp"

#include <cuda_runtime.h>

#include "common/cuda_check.hpp"

namespace distspmv {

template <typename V>
device_csr<V> allocate_device_csr(global_index_type rows, global_index_type cols, offset_type nnz) {
  device_csr<V> d;
  d.rows = rows;
  d.cols = cols;
  d.nnz = nnz;
  d.row_ptr = static_cast<offset_type*>(d.storage.allocate_bytes((static_cast<std::size_t>(rows) + 1) * sizeof(offset_type)));
  d.col_idx = static_cast<index_type*>(d.storage.allocate_bytes(static_cast<std::size_t>(nnz) * sizeof(index_type)));
  d.values = static_cast<V*>(d.storage.allocate_bytes(static_cast<std::size_t>(nnz) * sizeof(V)));
  return d;
}

template <typename V>
device_csr<V> upload_csr(const csr_matrix<V, index_type>& a) {
  auto d = allocate_device_csr<V>(a.rows, a.cols, a.nnz());
  copy_to_device(d.row_ptr, a.row_ptr.data(), a.row_ptr.size() * sizeof(offset_type));
  copy_to_device(d.col_idx, a.col_idx.data(), a.col_idx.size() * sizeof(index_type));
  copy_to_device(d.values, a.values.data(), a.values.size() * sizeof(V));
  return d;
}

template <typename V>
csr_matrix<V, index_type> download_csr(const device_csr_view<V>& d) {
  csr_matrix<V, index_type> a;
  a.rows = d.rows;
  a.cols = d.cols;
  a.row_ptr = download_array(d.row_ptr, static_cast<std::size_t>(d.rows) + 1);
  a.col_idx = download_array(d.col_idx, static_cast<std::size_t>(d.nnz));
  a.values = download_array(d.values, static_cast<std::size_t>(d.nnz));
  return a;
}

#define DSPMV_INSTANTIATE(V)                                                                       \
  template device_csr<V> allocate_device_csr<V>(global_index_type, global_index_type, offset_type); \
  template device_csr<V> upload_csr(const csr_matrix<V, index_type>&);                             \
  template csr_matrix<V, index_type> download_csr(const device_csr_view<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv
