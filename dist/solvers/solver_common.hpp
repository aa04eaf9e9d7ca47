// Pieces both solvers use (internal to dist/solvers): the timed SpMV, the Jacobi inverse, the
// true residual, the checks that must reach the same verdict on every rank.
#pragma once

#include <string>

#include "dist/distributed_matrix.hpp"
#include "dist/solvers/solver.hpp"
#include "dist/solvers/vector_ops.hpp"

namespace distspmv::solvers::detail {

/// Runs A.apply for a solver: counts the calls and, with options.timing, times each one between
/// two stream synchronisations (so that earlier vector kernels are not billed to the SpMV).
class spmv_runner {
 public:
  spmv_runner(distributed_matrix<double>& A, const vector_ops& ops, const solver_options& options,
              solve_result& result)
      : A_(A), ops_(ops), options_(options), result_(result) {}

  /// y = alpha A x + beta y
  void operator()(double alpha, const double* x, double beta, double* y);

 private:
  distributed_matrix<double>& A_;
  const vector_ops& ops_;
  const solver_options& options_;
  solve_result& result_;
};

/// What a zero or negative diagonal entry means to the solver.
enum class jacobi_mode {
  spd,      ///< CG: an entry <= 0 proves A is not SPD: throw
  general,  ///< GMRES: a zero entry is taken as 1 (PETSc's PCJACOBI does the same)
};

/// 1 / diag(A) in the backend's memory, or an empty array when options.jacobi is off.
/// Collective: every rank throws the same error for a bad diagonal.
backend_array jacobi_inverse(const distributed_matrix<double>& A, const solver_options& options, jacobi_mode mode,
                             const char* solver);

/// t = b - A x; returns ||t|| / bnorm.
double true_relative_residual(spmv_runner& spmv, vector_ops& ops, const double* b, const double* x, double* t,
                              double bnorm);

/// Throws distspmv::error marked collective(): the solvers decide on globally reduced values, so
/// every rank of the communicator throws the same error at the same point.
[[noreturn]] void throw_collective(const std::string& message, const char* file, int line);

/// Throws (collectively: the value is global) when value is NaN or Inf.
void require_finite(double value, const char* solver, const char* what, int iteration);

/// Validates the options shared by both solvers.
void check_options(const solver_options& options, const char* solver);

/// b == 0: the solution is x = 0 whatever A is; converged after 0 iterations.
void solve_zero_rhs(solve_result& result, const vector_ops& ops, double* x, const solver_options& options, double t0);

/// Ends the solve: waits for the stream, sets total_seconds (from MPI_Wtime t0) and makes both
/// timings the largest over ranks, so that every rank reports the same figures.
void finish_timing(solve_result& result, const vector_ops& ops, double t0);
/// Marks the end of the solve's setup (before the first iteration): result.setup_seconds, this
/// rank's for now; finish_timing makes it the largest over ranks.
void finish_setup(solve_result& result, const vector_ops& ops, double t0);

}  // namespace distspmv::solvers::detail
