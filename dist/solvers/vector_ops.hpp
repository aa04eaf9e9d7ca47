// Vector operations of the Krylov solvers on this rank's part of distributed vectors, on the host
// or the GPU (by backend), with global dot products that cost one MPI_Allreduce each.
//
//   solvers::vector_ops ops(A.where(), A.comm(), A.local_rows(), /*max_values=*/2);
//   solvers::backend_array r(A.where(), A.local_rows());
//   const double rr = ops.dot(r.data(), r.data());    // local dot + one MPI_Allreduce
//
// Everything a solve needs is allocated before its first iteration: the arrays (backend_array)
// and, on the GPU, the reduction scratch that vector_ops owns, so an iteration allocates nothing.
// On the CUDA backend the kernels are enqueued on the stream given at construction; the
// reductions wait for it (their result goes to MPI next).
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "dist/solvers/vector_kernels.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::solvers {

/// An owned array of doubles in host memory (backend::host) or device memory (backend::cuda),
/// zero-initialised. Move-only.
class backend_array {
 public:
  backend_array() = default;
  backend_array(backend where, std::size_t n);
  backend_array(backend_array&&) noexcept = default;
  backend_array& operator=(backend_array&&) noexcept = default;

  double* data() noexcept { return data_; }
  const double* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  backend where() const noexcept { return where_; }

  /// Copies size() values from / to host memory (synchronous; setup and results, not iterations).
  void copy_from_host(const double* host);
  void copy_to_host(double* host) const;
  std::vector<double> to_host() const;

 private:
  backend where_ = backend::host;
  std::size_t size_ = 0;
  std::unique_ptr<double[]> host_;
  device_storage device_;
  double* data_ = nullptr;
};

/// Vector kernels on `n` local entries plus the global reductions over `comm`.
class vector_ops {
 public:
  /// @param max_values the most values one reduction returns (dots(k, ..., with_self) returns
  ///                   k + 1); sizes the device scratch.
  /// @param stream     CUDA stream of every kernel (nullptr: the default stream); unused on the host
  vector_ops(backend where, MPI_Comm comm, std::int64_t n, int max_values, cuda_stream_t stream = nullptr);

  backend where() const noexcept { return where_; }
  MPI_Comm comm() const noexcept { return comm_; }
  std::int64_t size() const noexcept { return n_; }
  cuda_stream_t stream() const noexcept { return stream_; }

  void fill(double* y, double value) const;
  void copy(const double* x, double* y) const;
  /// y += a x
  void axpy(double a, const double* x, double* y) const;
  /// y = a x + b y (b == 0 overwrites y)
  void axpby(double a, const double* x, double b, double* y) const;
  void scale(double a, double* y) const;
  /// y = d .* x, elementwise (Jacobi); y may be x.
  void multiply(const double* d, const double* x, double* y) const;

  /// Global x . y: a local dot and one MPI_Allreduce.
  double dot(const double* x, const double* y);
  /// Global ||x||_2.
  double norm2(const double* x);

  /// CG's update in one pass and one MPI_Allreduce: x += a p; r -= a q; z = inv_diag .* r
  /// (inv_diag null: no preconditioner, z is r and is not written). Returns the global
  /// {r . z, r . r}.
  std::array<double, 2> cg_update(double a, const double* p, const double* q, const double* inv_diag, double* x,
                                  double* r, double* z);

  /// Global multi-dot in one MPI_Allreduce: out[j] = V_j . w for the k columns V_j = V + j * size(),
  /// and out[k] = w . w when with_self. `out` is host memory with k (+1) entries.
  void dots(int k, const double* V, const double* w, bool with_self, double* out);

  /// w += sum_j c[j] V_j for the k columns V_j = V + j * size(); c in host memory (local, no MPI).
  void combine(int k, const double* V, const double* c, double* w);

  /// Waits for the kernels enqueued so far (timing); nothing to do on the host.
  void synchronize() const;

  /// In-place global sum of `count` host values (one MPI_Allreduce).
  void sum_over_ranks(double* values, int count) const;

 private:
  backend where_;
  MPI_Comm comm_;
  std::int64_t n_;
  int max_values_;
  cuda_stream_t stream_;
  device_storage device_;            ///< reduction scratch on the CUDA backend
  kernels::device_scratch scratch_;  ///< views into device_
};

}  // namespace distspmv::solvers
