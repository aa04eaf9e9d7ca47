// Backend dispatch of the solver's vector kernels and the global reductions (vector_ops.hpp).
#include "dist/solvers/vector_ops.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/errors.hpp"
#include "common/mpi_check.hpp"

namespace distspmv::solvers {

// ---- backend_array ---------------------------------------------------------------------------

backend_array::backend_array(backend where, std::size_t n) : where_(where), size_(n) {
  if (where == backend::host) {
    host_ = std::make_unique<double[]>(n);  // value-initialised: zeros
    data_ = host_.get();
    return;
  }
  data_ = static_cast<double*>(device_.allocate_bytes(n * sizeof(double)));
  kernels::cuda::fill(static_cast<std::int64_t>(n), 0.0, data_, nullptr);
  kernels::cuda::synchronize(nullptr);
}

void backend_array::copy_from_host(const double* host) {
  if (where_ == backend::host)
    std::copy(host, host + size_, data_);
  else
    copy_to_device(data_, host, size_ * sizeof(double));
}

void backend_array::copy_to_host(double* host) const {
  if (where_ == backend::host)
    std::copy(data_, data_ + size_, host);
  else
    distspmv::copy_to_host(host, data_, size_ * sizeof(double));
}

std::vector<double> backend_array::to_host() const {
  std::vector<double> h(size_);
  copy_to_host(h.data());
  return h;
}

// ---- vector_ops ------------------------------------------------------------------------------

vector_ops::vector_ops(backend where, MPI_Comm comm, std::int64_t n, int max_values, cuda_stream_t stream)
    : where_(where), comm_(comm), n_(n), max_values_(max_values), stream_(stream) {
  DSPMV_REQUIRE(n >= 0 && max_values >= 2, "vector_ops: need n >= 0 and max_values >= 2");
  if (where == backend::cuda) {
    const std::size_t partials = static_cast<std::size_t>(kernels::max_reduction_blocks) * max_values;
    auto* base = static_cast<double*>(device_.allocate_bytes((partials + 2 * max_values) * sizeof(double)));
    scratch_ = {base, base + partials, base + partials + max_values, max_values};
  }
}

// Each operation calls the host or the CUDA kernel of the same name with the same arguments.
#define DSPMV_DISPATCH(name, ...)                                 \
  do {                                                            \
    if (where_ == backend::host)                                  \
      kernels::host::name(__VA_ARGS__);                           \
    else                                                          \
      kernels::cuda::name(__VA_ARGS__);                           \
  } while (0)

void vector_ops::fill(double* y, double value) const { DSPMV_DISPATCH(fill, n_, value, y, stream_); }
void vector_ops::copy(const double* x, double* y) const { DSPMV_DISPATCH(copy, n_, x, y, stream_); }
void vector_ops::axpy(double a, const double* x, double* y) const { DSPMV_DISPATCH(axpby, n_, a, x, 1.0, y, stream_); }
void vector_ops::axpby(double a, const double* x, double b, double* y) const {
  DSPMV_DISPATCH(axpby, n_, a, x, b, y, stream_);
}
void vector_ops::scale(double a, double* y) const { DSPMV_DISPATCH(scale, n_, a, y, stream_); }
void vector_ops::multiply(const double* d, const double* x, double* y) const {
  DSPMV_DISPATCH(multiply, n_, d, x, y, stream_);
}
void vector_ops::synchronize() const { DSPMV_DISPATCH(synchronize, stream_); }

double vector_ops::dot(const double* x, const double* y) {
  double v = 0;
  DSPMV_DISPATCH(dots, n_, 1, x, n_, y, false, &v, scratch_, stream_);
  sum_over_ranks(&v, 1);
  return v;
}

double vector_ops::norm2(const double* x) { return std::sqrt(dot(x, x)); }

std::array<double, 2> vector_ops::cg_update(double a, const double* p, const double* q, const double* inv_diag,
                                            double* x, double* r, double* z) {
  std::array<double, 2> v{};
  DSPMV_DISPATCH(cg_update, n_, a, p, q, inv_diag, x, r, z, v.data(), scratch_, stream_);
  sum_over_ranks(v.data(), 2);
  return v;
}

void vector_ops::dots(int k, const double* V, const double* w, bool with_self, double* out) {
  const int values = k + (with_self ? 1 : 0);
  DSPMV_REQUIRE(k >= 0 && values <= max_values_,
                "vector_ops::dots: " + std::to_string(values) + " values asked, scratch holds " +
                    std::to_string(max_values_));
  DSPMV_DISPATCH(dots, n_, k, V, n_, w, with_self, out, scratch_, stream_);
  sum_over_ranks(out, values);
}

void vector_ops::combine(int k, const double* V, const double* c, double* w) {
  DSPMV_REQUIRE(k >= 0 && k <= max_values_, "vector_ops::combine: more coefficients than the scratch holds");
  DSPMV_DISPATCH(combine, n_, k, V, n_, c, w, scratch_, stream_);
}

#undef DSPMV_DISPATCH

void vector_ops::sum_over_ranks(double* values, int count) const {
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_));
}

}  // namespace distspmv::solvers
