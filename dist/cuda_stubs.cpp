// dist/'s CUDA entry points in a build without CUDA: each throws not_compiled.
#include "common/errors.hpp"
#include "dist/gpu.hpp"
#include "dist/setup/gpu_order.hpp"
#include "dist/setup/split_rows.hpp"
#include "dist/transport/transport.hpp"

namespace distspmv::dist {
namespace gpu {

void stream_deleter::operator()(CUstream_st*) const noexcept {}
void event_deleter::operator()(CUevent_st*) const noexcept {}
void graph_deleter::operator()(CUgraphExec_st*) const noexcept {}
graph_ptr capture(cuda_stream_t, const std::function<void()>&) { DSPMV_NOT_COMPILED("CUDA"); }
void launch(CUgraphExec_st*, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void device_deleter::operator()(void*) const noexcept {}
void pinned_deleter::operator()(void*) const noexcept {}
stream_ptr make_stream(bool) { DSPMV_NOT_COMPILED("CUDA"); }
event_ptr make_event(bool) { DSPMV_NOT_COMPILED("CUDA"); }
float elapsed_ms(event_t, event_t) { DSPMV_NOT_COMPILED("CUDA"); }
void record(event_t, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void wait(cuda_stream_t, event_t) { DSPMV_NOT_COMPILED("CUDA"); }
bool query(cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void synchronize(cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
device_ptr allocate_device(std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
pinned_ptr allocate_pinned(std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void copy_async(void*, const void*, std::size_t, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
bool is_device_pointer(const void*) { return false; }
int device_count() { return 0; }
int current_device() { DSPMV_NOT_COMPILED("CUDA"); }
int multiprocessors() { DSPMV_NOT_COMPILED("CUDA"); }
void set_device(int) { DSPMV_NOT_COMPILED("CUDA"); }
std::string device_description(int) { DSPMV_NOT_COMPILED("CUDA"); }

template <typename V>
void gather(const V*, const index_type*, offset_type, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
void scatter_add(const V*, const index_type*, global_index_type, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
void wait_ready(const ready_flags&, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
template <typename V>
void halo_product(const halo_csr<V>&, V, const V*, V*, cuda_stream_t, const ready_flags*) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void gather(const double*, const index_type*, offset_type, double*, cuda_stream_t);
template void gather(const float*, const index_type*, offset_type, float*, cuda_stream_t);

template void scatter_add(const double*, const index_type*, global_index_type, double*, cuda_stream_t);
template void scatter_add(const float*, const index_type*, global_index_type, float*, cuda_stream_t);
template void halo_product(const halo_csr<double>&, double, const double*, double*, cuda_stream_t,
                           const ready_flags*);
template void halo_product(const halo_csr<float>&, float, const float*, float*, cuda_stream_t, const ready_flags*);

}  // namespace gpu

template <typename V>
std::unique_ptr<halo_transport<V>> make_staged_transport(MPI_Comm, const halo_pattern&, const V*, V*) {
  DSPMV_NOT_COMPILED("CUDA");
}
template std::unique_ptr<halo_transport<double>> make_staged_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                       double*);
template std::unique_ptr<halo_transport<float>> make_staged_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                      float*);

template <typename V>
std::unique_ptr<halo_transport<V>> make_ipc_transport(MPI_Comm, const halo_pattern&, const V*, V*) {
  DSPMV_NOT_COMPILED("CUDA");
}
template std::unique_ptr<halo_transport<double>> make_ipc_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                    double*);
template std::unique_ptr<halo_transport<float>> make_ipc_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                   float*);

template <typename V>
std::unique_ptr<halo_transport<V>> make_peer_put_transport(MPI_Comm, const halo_pattern&, V*) {
  DSPMV_NOT_COMPILED("CUDA");
}
template std::unique_ptr<halo_transport<double>> make_peer_put_transport(MPI_Comm, const halo_pattern&, double*);
template std::unique_ptr<halo_transport<float>> make_peer_put_transport(MPI_Comm, const halo_pattern&, float*);

}  // namespace distspmv::dist

namespace distspmv::dist {

template <typename V>
gpu_split<V> split_rows_on_gpu(row_range, const std::vector<row_range>&, const row_reader&, const split_options&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
device_csr<V> split_values_on_gpu(const gpu_split<V>&, const V*, bool, csr_matrix<double, index_type>&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
std::vector<V> diagonal_on_gpu(const device_csr_view<V>&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
std::vector<index_type> local_order_on_gpu(const device_csr_view<V>&, row_order, const std::vector<offset_type>&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
void permute_split_on_gpu(gpu_split<V>&, const std::vector<index_type>&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
device_csr<V> permuted_csr_on_gpu(const device_csr_view<V>&, const std::vector<index_type>&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template <typename V>
device_csr<V> copy_csr_on_gpu(const device_csr_view<V>&) {
  DSPMV_NOT_COMPILED("CUDA");
}
#define DSPMV_INSTANTIATE(V)                                                                                   \
  template device_csr<V> permuted_csr_on_gpu(const device_csr_view<V>&, const std::vector<index_type>&);     \
  template device_csr<V> copy_csr_on_gpu(const device_csr_view<V>&);                                         \
  template std::vector<index_type> local_order_on_gpu(const device_csr_view<V>&, row_order,                   \
                                                      const std::vector<offset_type>&);                      \
  template void permute_split_on_gpu(gpu_split<V>&, const std::vector<index_type>&);                         \
  template gpu_split<V> split_rows_on_gpu(row_range, const std::vector<row_range>&, const row_reader&,         \
                                          const split_options&);                                             \
  template device_csr<V> split_values_on_gpu(const gpu_split<V>&, const V*, bool, csr_matrix<double, index_type>&); \
  template std::vector<V> diagonal_on_gpu(const device_csr_view<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::dist
