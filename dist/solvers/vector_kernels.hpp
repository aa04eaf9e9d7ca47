// The local vector kernels behind vector_ops (internal to dist/solvers). Two namespaces with the
// same signatures: host:: (vector_ops_host.cpp) and cuda:: (vector_ops.cu, or vector_ops_stub.cpp
// in a build without CUDA, where every cuda:: function throws not_compiled). vector_ops picks
// one by backend, so the solvers contain no #ifdef and no CUDA header.
//
// All lengths are local (this rank's entries). Reductions return LOCAL partial sums in host
// memory; the global sum (one MPI_Allreduce) is vector_ops' business.
#pragma once

#include <cstdint>

#include "common/types.hpp"

namespace distspmv::solvers::kernels {

/// Device reductions run in two stages: at most this many blocks write one partial sum each
/// per value, then one block per value sums the partials. Bounds the scratch size.
constexpr int max_reduction_blocks = 1024;

/// Preallocated device scratch of the two-stage reductions (owned by vector_ops).
struct device_scratch {
  double* partials = nullptr;  ///< max_reduction_blocks * max_values doubles
  double* results = nullptr;   ///< max_values doubles (stage-2 output, copied to the host)
  double* coeffs = nullptr;    ///< max_values doubles (coefficients of combine)
  int max_values = 0;
};

namespace host {

/// y[i] = v
void fill(std::int64_t n, double v, double* y, cuda_stream_t s);
/// y[i] = x[i]
void copy(std::int64_t n, const double* x, double* y, cuda_stream_t s);
/// y = a x + b y (b == 0 overwrites y, NaN in y does not leak)
void axpby(std::int64_t n, double a, const double* x, double b, double* y, cuda_stream_t s);
/// y = a y
void scale(std::int64_t n, double a, double* y, cuda_stream_t s);
/// y[i] = d[i] * x[i] (y may be x)
void multiply(std::int64_t n, const double* d, const double* x, double* y, cuda_stream_t s);
/// CG's fused update in one pass: x += a p; r -= a q; z = inv_diag .* r (skipped when inv_diag is
/// null: z is then r); out[0..1] = local {r.z, r.r}.
void cg_update(std::int64_t n, double a, const double* p, const double* q, const double* inv_diag, double* x,
               double* r, double* z, double* out, const device_scratch& scratch, cuda_stream_t s);
/// out[j] = V_j . w for the k columns V_j = V + j * ld, and out[k] = w . w when with_self.
void dots(std::int64_t n, int k, const double* V, std::int64_t ld, const double* w, bool with_self, double* out,
          const device_scratch& scratch, cuda_stream_t s);
/// w += sum_j c[j] V_j, with c in host memory (k entries).
void combine(std::int64_t n, int k, const double* V, std::int64_t ld, const double* c, double* w,
             const device_scratch& scratch, cuda_stream_t s);
/// Waits for the work enqueued on s (nothing to wait for on the host).
void synchronize(cuda_stream_t s);

}  // namespace host

/// The same functions on device pointers, enqueued on stream s; the reductions (cg_update, dots)
/// wait for their result, the others return once enqueued.
namespace cuda {

void fill(std::int64_t n, double v, double* y, cuda_stream_t s);
void copy(std::int64_t n, const double* x, double* y, cuda_stream_t s);
void axpby(std::int64_t n, double a, const double* x, double b, double* y, cuda_stream_t s);
void scale(std::int64_t n, double a, double* y, cuda_stream_t s);
void multiply(std::int64_t n, const double* d, const double* x, double* y, cuda_stream_t s);
void cg_update(std::int64_t n, double a, const double* p, const double* q, const double* inv_diag, double* x,
               double* r, double* z, double* out, const device_scratch& scratch, cuda_stream_t s);
void dots(std::int64_t n, int k, const double* V, std::int64_t ld, const double* w, bool with_self, double* out,
          const device_scratch& scratch, cuda_stream_t s);
void combine(std::int64_t n, int k, const double* V, std::int64_t ld, const double* c, double* w,
             const device_scratch& scratch, cuda_stream_t s);
void synchronize(cuda_stream_t s);

}  // namespace cuda

}  // namespace distspmv::solvers::kernels
