// Compiled instead of the .cu files when CUDA is off (STYLE.md §3): every CUDA entry point
// exists and throws not_compiled naming itself, so dist/, the tests and the command line build
// unchanged. One block per format folder.
#include "common/errors.hpp"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/cusparse/cusparse.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/device_timing.hpp"
#include "local_kernels/float_values.hpp"
#include "local_kernels/format_selector.hpp"
#include "local_kernels/ellr/ellr.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "local_kernels/hll/hll.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"
#include "local_kernels/panel/panel.hpp"
#include "local_kernels/pellr/pellr.hpp"
#include "local_kernels/sell/sell.hpp"
#include "local_kernels/testing/big_matrix.hpp"

namespace distspmv {

// ---- device_storage ----
device_storage::device_storage(device_storage&&) noexcept = default;
device_storage& device_storage::operator=(device_storage&&) noexcept = default;
device_storage::~device_storage() = default;
void device_storage::release() noexcept {}
void device_storage::adopt(device_storage&&) { DSPMV_NOT_COMPILED("CUDA"); }
bool device_storage::free_allocation(const void*) { DSPMV_NOT_COMPILED("CUDA"); }
std::size_t device_bytes_in_use() { return 0; }
std::size_t device_bytes_peak() { return 0; }
void reset_device_peak() {}
device_memory_info device_memory() { return {}; }
void* device_storage::allocate_bytes(std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void* device_storage::upload_bytes(const void*, std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
int cuda_device_count() { return 0; }
void copy_to_host(void*, const void*, std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void copy_to_device(void*, const void*, std::size_t) { DSPMV_NOT_COMPILED("CUDA"); }
void device_synchronize() { DSPMV_NOT_COMPILED("CUDA"); }

// ---- float_values ----
template <typename V>
void check_fits_float(const device_csr_view<V>&, const std::string&) { DSPMV_NOT_COMPILED("CUDA"); }
template void check_fits_float(const device_csr_view<float>&, const std::string&);
template void check_fits_float(const device_csr_view<double>&, const std::string&);
const float* narrow_in_place(double*, offset_type) { DSPMV_NOT_COMPILED("CUDA"); }
const float* narrow_to_new(const double*, offset_type, device_storage&) { DSPMV_NOT_COMPILED("CUDA"); }

// ---- device_csr ----
template <typename V>
device_csr<V> allocate_device_csr(global_index_type, global_index_type, offset_type) { DSPMV_NOT_COMPILED("CUDA"); }
template <typename V>
device_csr<V> upload_csr(const csr_matrix<V, index_type>&) { DSPMV_NOT_COMPILED("CUDA"); }
template <typename V>
csr_matrix<V, index_type> download_csr(const device_csr_view<V>&) { DSPMV_NOT_COMPILED("CUDA"); }
#define DSPMV_INSTANTIATE(V)                                                                       \
  template device_csr<V> allocate_device_csr<V>(global_index_type, global_index_type, offset_type); \
  template device_csr<V> upload_csr(const csr_matrix<V, index_type>&);                             \
  template csr_matrix<V, index_type> download_csr(const device_csr_view<V>&);
DSPMV_INSTANTIATE(float)
DSPMV_INSTANTIATE(double)
#undef DSPMV_INSTANTIATE

// ---- format_selector ----
template <typename V>
row_statistics compute_row_statistics(const device_csr_view<V>&) { DSPMV_NOT_COMPILED("CUDA"); }
template row_statistics compute_row_statistics(const device_csr_view<float>&);
template row_statistics compute_row_statistics(const device_csr_view<double>&);

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
template <typename V>
device_built<csr::csr_view<V>> csr::build_cuda(device_csr<V>&&, const csr_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<csr::csr_view<float>> csr::build_cuda(device_csr<float>&&, const csr_params&);
template device_built<csr::csr_view<double>> csr::build_cuda(device_csr<double>&&, const csr_params&);

// ---- hll ----
template <typename V>
void hll::spmv_cuda(const hll_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void hll::spmv_cuda(const hll_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void hll::spmv_cuda(const hll_view<double>&, double, const double*, double, double*, cuda_stream_t);
template <typename V>
device_built<hll::hll_view<V>> hll::build_cuda(device_csr<V>&&, const hll_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<hll::hll_view<float>> hll::build_cuda(device_csr<float>&&, const hll_params&);
template device_built<hll::hll_view<double>> hll::build_cuda(device_csr<double>&&, const hll_params&);

// ---- hdia ----
template <typename V>
void hdia::spmv_cuda(const hdia_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void hdia::spmv_cuda(const hdia_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void hdia::spmv_cuda(const hdia_view<double>&, double, const double*, double, double*, cuda_stream_t);
template <typename V>
device_built<hdia::hdia_view<V>> hdia::build_cuda(device_csr<V>&&, const hdia_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<hdia::hdia_view<float>> hdia::build_cuda(device_csr<float>&&, const hdia_params&);
template device_built<hdia::hdia_view<double>> hdia::build_cuda(device_csr<double>&&, const hdia_params&);
template <typename V>
offset_type hdia::hack_slots_cuda(const device_csr_view<V>&, const hdia_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template offset_type hdia::hack_slots_cuda(const device_csr_view<float>&, const hdia_params&);
template offset_type hdia::hack_slots_cuda(const device_csr_view<double>&, const hdia_params&);

// ---- ipcsr ----
template <typename V>
void ipcsr::spmv_cuda(const ipcsr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void ipcsr::spmv_cuda(const ipcsr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void ipcsr::spmv_cuda(const ipcsr_view<double>&, double, const double*, double, double*, cuda_stream_t);
std::size_t ipcsr::device_shared_bytes() { return 0; }  // no device in a build without CUDA
template <typename V>
device_built<ipcsr::ipcsr_view<V>> ipcsr::build_cuda(device_csr<V>&&, const ipcsr_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<ipcsr::ipcsr_view<float>> ipcsr::build_cuda(device_csr<float>&&, const ipcsr_params&);
template device_built<ipcsr::ipcsr_view<double>> ipcsr::build_cuda(device_csr<double>&&, const ipcsr_params&);

// ---- ellr ----
template <typename V>
void ellr::spmv_cuda(const ellr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void ellr::spmv_cuda(const ellr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void ellr::spmv_cuda(const ellr_view<double>&, double, const double*, double, double*, cuda_stream_t);
template <typename V>
device_built<ellr::ellr_view<V>> ellr::build_cuda(device_csr<V>&&, const ellr_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<ellr::ellr_view<float>> ellr::build_cuda(device_csr<float>&&, const ellr_params&);
template device_built<ellr::ellr_view<double>> ellr::build_cuda(device_csr<double>&&, const ellr_params&);

// ---- pellr ----
template <typename V>
void pellr::spmv_cuda(const pellr_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void pellr::spmv_cuda(const pellr_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void pellr::spmv_cuda(const pellr_view<double>&, double, const double*, double, double*, cuda_stream_t);
template <typename V>
device_built<pellr::pellr_view<V>> pellr::build_cuda(device_csr<V>&&, const pellr_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<pellr::pellr_view<float>> pellr::build_cuda(device_csr<float>&&, const pellr_params&);
template device_built<pellr::pellr_view<double>> pellr::build_cuda(device_csr<double>&&, const pellr_params&);

// ---- panel ----
template <typename V>
void panel::spmv_cuda(const panel_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void panel::spmv_cuda(const panel_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void panel::spmv_cuda(const panel_view<double>&, double, const double*, double, double*, cuda_stream_t);
template <typename V>
device_built<panel::panel_view<V>> panel::build_cuda(device_csr<V>&&, const panel_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<panel::panel_view<float>> panel::build_cuda(device_csr<float>&&, const panel_params&);
template device_built<panel::panel_view<double>> panel::build_cuda(device_csr<double>&&, const panel_params&);

// ---- sell ----
template <typename V>
void sell::spmv_cuda(const sell_view<V>&, V, const V*, V, V*, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
template void sell::spmv_cuda(const sell_view<float>&, float, const float*, float, float*, cuda_stream_t);
template void sell::spmv_cuda(const sell_view<double>&, double, const double*, double, double*, cuda_stream_t);
template <typename V>
device_built<sell::sell_view<V>> sell::build_cuda(device_csr<V>&&, const sell_params&) {
  DSPMV_NOT_COMPILED("CUDA");
}
template device_built<sell::sell_view<float>> sell::build_cuda(device_csr<float>&&, const sell_params&);
template device_built<sell::sell_view<double>> sell::build_cuda(device_csr<double>&&, const sell_params&);

// ---- testing/big_matrix ----
device_csr<double> big_matrix::generate_band_csr(global_index_type, const hub_rows&) { DSPMV_NOT_COMPILED("CUDA"); }
void big_matrix::fill_hash(double*, global_index_type, std::uint64_t) { DSPMV_NOT_COMPILED("CUDA"); }
void big_matrix::fill_value(double*, global_index_type, double) { DSPMV_NOT_COMPILED("CUDA"); }
void big_matrix::reference_spmv(const device_csr_view<double>&, const double*, double*, double*) {
  DSPMV_NOT_COMPILED("CUDA");
}
big_matrix::row_check big_matrix::compare_rows(const double*, const double*, const double*, global_index_type, double) {
  DSPMV_NOT_COMPILED("CUDA");
}

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
template <typename V>
std::unique_ptr<local_operator<V>> cusparse::make_operator(const std::string&, device_csr<V>&&, algorithm) {
  DSPMV_NOT_COMPILED("CUDA");
}
template std::unique_ptr<local_operator<float>> cusparse::make_operator(const std::string&, device_csr<float>&&,
                                                                        algorithm);
template std::unique_ptr<local_operator<double>> cusparse::make_operator(const std::string&, device_csr<double>&&,
                                                                         algorithm);

}  // namespace distspmv
