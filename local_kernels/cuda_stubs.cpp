// Compiled instead of the .cu files when CUDA is off (STYLE.md §3): every CUDA entry point
// exists and throws not_compiled naming itself, so dist/, the tests and the command line build
// unchanged. One block per format folder.
#include "common/errors.hpp"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/cusparse/cusparse.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/device_timing.hpp"
#include "local_kernels/ellr/ellr.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "local_kernels/hll/hll.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"
#include "local_kernels/pellr/pellr.hpp"
#include "local_kernels/sell/sell.hpp"

namespace distspmv {

// ---- device_storage ----
device_storage::device_storage(device_storage&&) noexcept = default;
device_storage& device_storage::operator=(device_storage&&) noexcept = default;
device_storage::~device_storage() = default;
void device_storage::release() noexcept {}
void* device_storage::allocate_bytes(std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void* device_storage::upload_bytes(const void*, std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
int cuda_device_count() { return 0; }
void copy_to_host(void*, const void*, std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void copy_to_device(void*, const void*, std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void device_synchronize() { DSPMV_NOT_COMPILED("CUDA"); }

// ---- device_timing ----
std::vector<double> time_on_device(const std::function<void(cuda_stream_t)>&, int, int) { DSPMV_NOT_COMPILED("CUDA"); }
double measure_copy_bandwidth_gbps(std::size_t, int) { DSPMV_NOT_COMPILED("CUDA"); }
std::string device_name() { return ""; }

// ---- csr ----
template <typename V>
void csr::spmv_cuda(const csr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void csr::spmv_cuda(const csr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void csr::spmv_cuda(const csr_view<double>&, double, const double*, double, double*, cuda_stream_t);

// ---- hll ----
template <typename V>
void hll::spmv_cuda(const hll_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void hll::spmv_cuda(const hll_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void hll::spmv_cuda(const hll_view<double>&, double, const double*, double, double*, cuda_stream_t);

// ---- hdia ----
template <typename V>
void hdia::spmv_cuda(const hdia_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void hdia::spmv_cuda(const hdia_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void hdia::spmv_cuda(const hdia_view<double>&, double, const double*, double, double*, cuda_stream_t);

// ---- ipcsr ----
template <typename V>
void ipcsr::spmv_cuda(const ipcsr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void ipcsr::spmv_cuda(const ipcsr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void ipcsr::spmv_cuda(const ipcsr_view<double>&, double, const double*, double, double*, cuda_stream_t);
std::size_t ipcsr::device_shared_bytes() { return 0; }  // no device in a build without CUDA

// ---- ellr ----
template <typename V>
void ellr::spmv_cuda(const ellr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void ellr::spmv_cuda(const ellr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void ellr::spmv_cuda(const ellr_view<double>&, double, const double*, double, double*, cuda_stream_t);

// ---- pellr ----
template <typename V>
void pellr::spmv_cuda(const pellr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void pellr::spmv_cuda(const pellr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void pellr::spmv_cuda(const pellr_view<double>&, double, const double*, double, double*, cuda_stream_t);

// ---- sell ----
template <typename V>
void sell::spmv_cuda(const sell_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void sell::spmv_cuda(const sell_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void sell::spmv_cuda(const sell_view<double>&, double, const double*, double, double*, cuda_stream_t);

// ---- cusparse ----
template <typename V>
std::unique_ptr<local_operator<V>> cusparse::make_operator(const std::string&, const csr_matrix<V, index_type>&,
                                                           algorithm, backend) {
  DSPMV_NOT_COMPILED("CUDA");
}
template std::unique_ptr<local_operator<float>> cusparse::make_operator(const std::string&,
                                                                        const csr_matrix<float, index_type>&,
                                                                        algorithm, backend);
template std::unique_ptr<local_operator<double>> cusparse::make_operator(const std::string&,
                                                                         const csr_matrix<double, index_type>&,
                                                                         algorithm, backend);

}  // namespace distspmv
