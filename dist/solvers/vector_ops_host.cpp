// Host versions of the solver's vector kernels (vector_kernels.hpp). Plain loops; OpenMP splits
// the long ones (static schedule, so a reduction's order is fixed for a given thread count and
// the iteration counts are reproducible).
#include <cstdint>

#include "dist/solvers/vector_kernels.hpp"

namespace distspmv::solvers::kernels::host {

namespace {
/// Below this length a parallel region costs more than it saves.
constexpr std::int64_t parallel_min = 1 << 16;
}  // namespace

void fill(std::int64_t n, double v, double* y, cuda_stream_t) {
#pragma omp parallel for schedule(static) if (n > parallel_min)
  for (std::int64_t i = 0; i < n; ++i) y[i] = v;
}

void copy(std::int64_t n, const double* x, double* y, cuda_stream_t) {
#pragma omp parallel for schedule(static) if (n > parallel_min)
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i];
}

void axpby(std::int64_t n, double a, const double* x, double b, double* y, cuda_stream_t) {
  if (b == 0.0) {
#pragma omp parallel for schedule(static) if (n > parallel_min)
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i];
  } else {
#pragma omp parallel for schedule(static) if (n > parallel_min)
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
  }
}

void scale(std::int64_t n, double a, double* y, cuda_stream_t) {
#pragma omp parallel for schedule(static) if (n > parallel_min)
  for (std::int64_t i = 0; i < n; ++i) y[i] *= a;
}

void multiply(std::int64_t n, const double* d, const double* x, double* y, cuda_stream_t) {
#pragma omp parallel for schedule(static) if (n > parallel_min)
  for (std::int64_t i = 0; i < n; ++i) y[i] = d[i] * x[i];
}

void cg_update(std::int64_t n, double a, const double* p, const double* q, const double* inv_diag, double* x,
               double* r, double* z, double* out, const device_scratch&, cuda_stream_t) {
  double rz = 0, rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rz, rr) if (n > parallel_min)
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] += a * p[i];
    const double ri = r[i] - a * q[i];
    r[i] = ri;
    double zi = ri;
    if (inv_diag) {
      zi = inv_diag[i] * ri;
      z[i] = zi;
    }
    rz += ri * zi;
    rr += ri * ri;
  }
  out[0] = rz;
  out[1] = rr;
}

void dots(std::int64_t n, int k, const double* V, std::int64_t ld, const double* w, bool with_self, double* out,
          const device_scratch&, cuda_stream_t) {
  // One pass over each column; w stays in cache between columns for the sizes where it matters.
  for (int j = 0; j < k + (with_self ? 1 : 0); ++j) {
    const double* v = j < k ? V + j * ld : w;
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > parallel_min)
    for (std::int64_t i = 0; i < n; ++i) s += v[i] * w[i];
    out[j] = s;
  }
}

void combine(std::int64_t n, int k, const double* V, std::int64_t ld, const double* c, double* w,
             const device_scratch&, cuda_stream_t) {
  // Row-wise: w is read and written once, whatever k is.
#pragma omp parallel for schedule(static) if (n > parallel_min)
  for (std::int64_t i = 0; i < n; ++i) {
    double acc = w[i];
    for (int j = 0; j < k; ++j) acc += c[j] * V[j * ld + i];
    w[i] = acc;
  }
}

void synchronize(cuda_stream_t) {}

}  // namespace distspmv::solvers::kernels::host
