#include "dist/solvers/solver_common.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "common/errors.hpp"
#include "common/mpi_check.hpp"

namespace distspmv::solvers::detail {

void throw_collective(const std::string& message, const char* file, int line) {
  error e(message, file, line);
  e.mark_collective();
  throw e;
}

void spmv_runner::operator()(double alpha, const double* x, double beta, double* y) {
  ++result_.spmv_calls;
  if (!options_.timing) {
    A_.apply(alpha, x, beta, y, options_.stream);
    return;
  }
  ops_.synchronize();
  const double t0 = MPI_Wtime();
  A_.apply(alpha, x, beta, y, options_.stream);
  ops_.synchronize();
  result_.spmv_seconds += MPI_Wtime() - t0;
}

namespace {

std::string format_double(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

/// The smallest diagonal entry over all ranks (NaN if any rank has a NaN), and its global row
/// in the partitioned numbering.
struct global_min {
  double value;
  long long row;
};

global_min smallest_diagonal(const distributed_matrix<double>& A, const std::vector<double>& d) {
  // MPI_MINLOC on (value, row) pairs; a NaN entry is reported as -inf so that it wins.
  struct {
    double value;
    int rank;
  } local{std::numeric_limits<double>::infinity(), A.rank()}, global{};
  long long row = -1;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double v = std::isnan(d[i]) ? -std::numeric_limits<double>::infinity() : d[i];
    if (v < local.value) {
      local.value = v;
      row = static_cast<long long>(A.first_row() + static_cast<global_index_type>(i));
    }
  }
  DSPMV_MPI_CHECK(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, A.comm()));
  DSPMV_MPI_CHECK(MPI_Bcast(&row, 1, MPI_LONG_LONG, global.rank, A.comm()));
  return {global.value, row};
}

}  // namespace

backend_array jacobi_inverse(const distributed_matrix<double>& A, const solver_options& options, jacobi_mode mode,
                             const char* solver) {
  if (!options.jacobi) return {};
  std::vector<double> d = A.diagonal();
  const global_min smallest = smallest_diagonal(A, d);
  if (smallest.value == -std::numeric_limits<double>::infinity())
    throw_collective(std::string(solver) + ": the diagonal of the matrix holds NaN or -Inf (row " +
                         std::to_string(smallest.row) + ", partitioned numbering)",
                     __FILE__, __LINE__);
  if (mode == jacobi_mode::spd && !(smallest.value > 0)) {
    throw_collective(std::string(solver) + ": diagonal entry " + format_double(smallest.value) + " in row " +
                         std::to_string(smallest.row) +
                         " (partitioned numbering) is not positive, so the matrix is not symmetric positive "
                         "definite; use GMRES (--method gmres)",
                     __FILE__, __LINE__);
  }
  for (double& v : d) v = v == 0.0 ? 1.0 : 1.0 / v;
  backend_array inv(A.where(), d.size());
  inv.copy_from_host(d.data());
  return inv;
}

double true_relative_residual(spmv_runner& spmv, vector_ops& ops, const double* b, const double* x, double* t,
                              double bnorm) {
  ops.copy(b, t);
  spmv(-1.0, x, 1.0, t);
  return ops.norm2(t) / bnorm;
}

void require_finite(double value, const char* solver, const char* what, int iteration) {
  if (std::isfinite(value)) return;
  throw_collective(std::string(solver) + ": " + what + " became " + (std::isnan(value) ? "NaN" : "infinite") +
                       " at iteration " + std::to_string(iteration) +
                       " (the matrix or the right-hand side holds NaN/Inf, or the iteration overflowed)",
                   __FILE__, __LINE__);
}

void check_options(const solver_options& options, const char* solver) {
  DSPMV_REQUIRE(options.rtol > 0 && std::isfinite(options.rtol),
                std::string(solver) + ": rtol must be a positive number, got " + format_double(options.rtol));
  DSPMV_REQUIRE(options.max_iters >= 0,
                std::string(solver) + ": max_iters must be >= 0, got " + std::to_string(options.max_iters));
}

void solve_zero_rhs(solve_result& result, const vector_ops& ops, double* x, const solver_options& options, double t0) {
  ops.fill(x, 0.0);
  result.converged = true;
  result.final_relative_residual = 0.0;
  if (options.record_history) result.residual_history.push_back(0.0);
  finish_timing(result, ops, t0);
}

void finish_setup(solve_result& result, const vector_ops& ops, double t0) {
  ops.synchronize();
  result.setup_seconds = MPI_Wtime() - t0;
}

void finish_timing(solve_result& result, const vector_ops& ops, double t0) {
  ops.synchronize();
  double t[3] = {MPI_Wtime() - t0, result.spmv_seconds, result.setup_seconds};
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, t, 3, MPI_DOUBLE, MPI_MAX, ops.comm()));
  result.total_seconds = t[0];
  result.spmv_seconds = t[1];
  result.setup_seconds = t[2];
}

}  // namespace distspmv::solvers::detail
