// Options and results shared by the Krylov solvers (cg.hpp, gmres.hpp).
#pragma once

#include <vector>

#include "common/types.hpp"

namespace distspmv::solvers {

struct solver_options {
  /// Stop when ||b - A x||_2 <= rtol * ||b||_2 (the true residual, checked once the iteration's
  /// own residual says so).
  double rtol = 1e-8;
  /// The most iterations (one SpMV each; the residual recomputations at restarts do not count).
  int max_iters = 10000;
  /// GMRES only: Krylov vectors per cycle (GMRES(m)).
  int restart = 30;
  /// Jacobi (diagonal) preconditioning from A.diagonal().
  bool jacobi = true;
  /// Keep the relative residual of every iteration in solve_result::residual_history.
  bool record_history = true;
  /// Time each A.apply separately (a stream synchronisation before and after each), for the
  /// SpMV share of the run; off, only the total is measured and nothing extra is synchronised.
  bool timing = false;
  /// CUDA stream of every SpMV and vector kernel (nullptr: the default stream).
  cuda_stream_t stream = nullptr;
};

struct solve_result {
  int iterations = 0;
  /// True when the true relative residual ||b - A x|| / ||b|| reached rtol.
  bool converged = false;
  /// ||b - A x|| / ||b|| recomputed from x at the end (0 when b == 0).
  double final_relative_residual = 0;
  /// Relative residual norms: entry 0 before the first iteration, then one per iteration (CG: the
  /// recurrence's ||r||; GMRES: the least-squares estimate, equal to the true residual in exact
  /// arithmetic since the preconditioning is on the right).
  std::vector<double> residual_history;
  /// Whole solve, from entry to return (largest over ranks).
  double total_seconds = 0;
  /// Of which before the first iteration: ||b||, the Jacobi diagonal (inverted on the host and
  /// uploaded) and the work vectors' allocation (largest over ranks).
  double setup_seconds = 0;
  /// Inside A.apply (largest over ranks); measured only with solver_options::timing, else 0.
  double spmv_seconds = 0;
  /// Calls of A.apply, residual recomputations included.
  int spmv_calls = 0;

  /// The iterations' time (the solve less its setup) per iteration.
  double seconds_per_iteration() const {
    return iterations > 0 ? (total_seconds - setup_seconds) / iterations : 0.0;
  }
  /// Share of the iterations' time spent in A.apply (0 without timing).
  double spmv_fraction() const {
    const double iterating = total_seconds - setup_seconds;
    return iterating > 0 ? spmv_seconds / iterating : 0.0;
  }
};

}  // namespace distspmv::solvers
