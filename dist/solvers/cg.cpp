// Preconditioned CG (cg.hpp). The textbook algorithm (Saad, "Iterative Methods for Sparse Linear
// Systems", Alg. 9.1) with two choices:
//  - x, r, z are updated in one fused pass that also yields r.z and r.r, which then travel in one
//    MPI_Allreduce: two reductions per iteration (p.Ap, then the pair);
//  - when the recurrence's residual reaches rtol, the true residual b - A x is computed; if it is
//    still above rtol (rounding made the two drift apart), CG restarts from it ("residual
//    replacement"), so that `converged` always refers to the true residual.
#include "dist/solvers/cg.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "common/errors.hpp"
#include "dist/solvers/solver_common.hpp"
#include "dist/solvers/vector_ops.hpp"

namespace distspmv::solvers {

namespace {

constexpr const char* name = "cg";

/// Entries to reserve for the history, so that recording it allocates nothing per iteration.
std::size_t history_capacity(const solver_options& o) {
  return o.record_history ? static_cast<std::size_t>(std::min(o.max_iters, 1 << 20)) + 1 : 0;
}

[[noreturn]] void throw_not_spd(double pap, int iteration) {
  std::ostringstream s;
  s << name << ": p^T A p = " << pap << " <= 0 at iteration " << iteration
    << ": the matrix is not symmetric positive definite; use GMRES (--method gmres)";
  detail::throw_collective(s.str(), __FILE__, __LINE__);
}

/// The state of one CG run; the vectors are allocated once, before the first iteration.
class cg_run {
 public:
  cg_run(distributed_matrix<double>& A, vector_ops& ops, const double* b, double* x, const solver_options& options,
         solve_result& result, double bnorm)
      : ops_(ops),
        spmv_(A, ops_, options, result),
        options_(options),
        result_(result),
        b_(b),
        x_(x),
        bnorm_(bnorm),
        inv_diag_(detail::jacobi_inverse(A, options, detail::jacobi_mode::spd, name)),
        r_(A.where(), A.local_rows()),
        p_(A.where(), A.local_rows()),
        q_(A.where(), A.local_rows()),
        z_store_(options.jacobi ? backend_array(A.where(), A.local_rows()) : backend_array()) {
    minv_ = options.jacobi ? inv_diag_.data() : nullptr;
    z_ = options.jacobi ? z_store_.data() : r_.data();  // no preconditioner: z is r
  }

  void run() {
    result_.residual_history.reserve(history_capacity(options_));
    ops_.copy(b_, r_.data());
    spmv_(-1.0, x_, 1.0, r_.data());  // r = b - A x0
    restart_directions();
    record(std::sqrt(rr_) / bnorm_);
    int it = 0;
    for (;;) {
      detail::require_finite(rr_, name, "the residual norm", it);
      if (std::sqrt(rr_) / bnorm_ <= options_.rtol && confirm_convergence()) break;
      if (it >= options_.max_iters) {
        result_.final_relative_residual = detail::true_relative_residual(spmv_, ops_, b_, x_, q_.data(), bnorm_);
        break;
      }
      step(++it);
    }
    result_.iterations = it;
  }

 private:
  /// z = M^-1 r, p = z, and the global r.z and r.r (one Allreduce).
  void restart_directions() {
    if (minv_) ops_.multiply(minv_, r_.data(), z_);
    ops_.copy(z_, p_.data());
    double v[2];
    ops_.dots(1, z_, r_.data(), /*with_self=*/true, v);
    rz_ = v[0];
    rr_ = v[1];
  }

  /// One CG iteration (numbered `it` in messages).
  void step(int it) {
    spmv_(1.0, p_.data(), 0.0, q_.data());
    const double pap = ops_.dot(p_.data(), q_.data());
    detail::require_finite(pap, name, "p^T A p", it);
    if (pap <= 0) throw_not_spd(pap, it);  // global value: every rank throws
    const auto [rz, rr] = ops_.cg_update(rz_ / pap, p_.data(), q_.data(), minv_, x_, r_.data(), z_);
    ops_.axpby(1.0, z_, rz / rz_, p_.data());  // p = z + beta p
    rz_ = rz;
    rr_ = rr;
    record(std::sqrt(rr) / bnorm_);
  }

  /// The recurrence says converged: check the true residual (into q). When it disagrees, restart
  /// from the true residual and carry on.
  bool confirm_convergence() {
    const double rel = detail::true_relative_residual(spmv_, ops_, b_, x_, q_.data(), bnorm_);
    result_.final_relative_residual = rel;
    if (rel <= options_.rtol) {
      result_.converged = true;
      return true;
    }
    ops_.copy(q_.data(), r_.data());
    restart_directions();
    return false;
  }

  void record(double rel) {
    if (options_.record_history) result_.residual_history.push_back(rel);
  }

  vector_ops& ops_;
  detail::spmv_runner spmv_;
  const solver_options& options_;
  solve_result& result_;
  const double* b_;
  double* x_;
  double bnorm_;
  backend_array inv_diag_, r_, p_, q_, z_store_;
  const double* minv_ = nullptr;
  double* z_ = nullptr;
  double rz_ = 0, rr_ = 0;
};

}  // namespace

solve_result cg(distributed_matrix<double>& A, const double* b, double* x, const solver_options& options) {
  const double t0 = MPI_Wtime();
  detail::check_options(options, name);
  solve_result result;
  vector_ops ops(A.where(), A.comm(), A.local_rows(), 2, options.stream);
  const double bnorm = ops.norm2(b);
  detail::require_finite(bnorm, name, "||b||", 0);
  if (bnorm == 0) {
    detail::solve_zero_rhs(result, ops, x, options, t0);
    return result;
  }
  cg_run solve(A, ops, b, x, options, result, bnorm);
  detail::finish_setup(result, ops, t0);
  solve.run();
  detail::finish_timing(result, ops, t0);
  return result;
}

}  // namespace distspmv::solvers
