// Restarted, right-preconditioned GMRES(m) (gmres.hpp): Saad, "Iterative Methods for Sparse Linear
// Systems", Alg. 6.9 with Givens rotations (Alg. 6.10's least-squares update) and the right
// preconditioning of Alg. 9.5. The Krylov basis V lives in one array of (m + 1) local columns,
// so the projections of one Arnoldi step are a single multi-dot and a single MPI_Allreduce.
#include "dist/solvers/gmres.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "dist/solvers/solver_common.hpp"
#include "dist/solvers/vector_ops.hpp"

namespace distspmv::solvers {

namespace {

constexpr const char* name = "gmres";
/// Bounds the basis (m + 1 vectors) and the coefficients staged in a CUDA block's shared memory.
constexpr int max_restart = 1000;

/// The state of one GMRES run: the basis, the work vector and the small dense problem (host), all
/// allocated before the first iteration.
class gmres_run {
 public:
  gmres_run(distributed_matrix<double>& A, vector_ops& ops, const double* b, double* x, const solver_options& options,
            solve_result& result, double bnorm)
      : ops_(ops),
        spmv_(A, ops, options, result),
        options_(options),
        result_(result),
        b_(b),
        x_(x),
        bnorm_(bnorm),
        n_(A.local_rows()),
        m_(options.restart),
        inv_diag_(detail::jacobi_inverse(A, options, detail::jacobi_mode::general, name)),
        basis_(A.where(), static_cast<std::size_t>(m_ + 1) * A.local_rows()),
        work_(A.where(), A.local_rows()),
        H_(static_cast<std::size_t>(m_ + 1) * m_),
        cs_(m_),
        sn_(m_),
        g_(m_ + 1),
        y_(m_),
        proj_(m_ + 1),
        coeff_(m_ + 1) {
    minv_ = options.jacobi ? inv_diag_.data() : nullptr;
    if (options.record_history)
      result.residual_history.reserve(static_cast<std::size_t>(std::min(options.max_iters, 1 << 20)) + 1);
  }

  void run() {
    for (bool first = true;; first = false) {
      // Each cycle starts from the true residual: V_0 = b - A x, which also decides convergence.
      const double rel = detail::true_relative_residual(spmv_, ops_, b_, x_, column(0), bnorm_);
      detail::require_finite(rel, name, "the residual norm", iterations_);
      if (first && options_.record_history) result_.residual_history.push_back(rel);
      result_.final_relative_residual = rel;
      if (rel <= options_.rtol) {
        result_.converged = true;
        break;
      }
      if (iterations_ >= options_.max_iters) break;
      update_solution(cycle(rel * bnorm_));
    }
    result_.iterations = iterations_;
  }

 private:
  double* column(int j) { return basis_.data() + static_cast<std::int64_t>(j) * n_; }
  double& H(int i, int j) { return H_[static_cast<std::size_t>(j) * (m_ + 1) + i]; }

  /// Arnoldi steps from V_0 = r (of norm beta) until the estimate reaches rtol, the basis is
  /// full, the iterations run out or the space is invariant. Returns the steps taken.
  int cycle(double beta) {
    ops_.scale(1.0 / beta, column(0));
    std::fill(g_.begin(), g_.end(), 0.0);
    g_[0] = beta;
    for (int j = 0; j < m_; ++j) {
      // w = A M^-1 V_j, written straight into the next basis column.
      const double* v = column(j);
      if (minv_) {
        ops_.multiply(minv_, v, work_.data());
        v = work_.data();
      }
      spmv_(1.0, v, 0.0, column(j + 1));
      ++iterations_;
      const double h_next = orthogonalise(j);
      const double estimate = rotate(j, h_next);
      detail::require_finite(estimate, name, "the residual estimate", iterations_);
      if (options_.record_history) result_.residual_history.push_back(estimate / bnorm_);
      if (H(j, j) == 0.0) {  // A M^-1 V_j = 0: A is singular
        if (j == 0)  // no progress possible: restarting would repeat this cycle (global value)
          detail::throw_collective(std::string(name) + ": A M^-1 r = 0 for the residual r at iteration " +
                                       std::to_string(iterations_) + ": the matrix is singular",
                                   __FILE__, __LINE__);
        return j;  // keep the columns that solve
      }
      const bool done = estimate <= options_.rtol * bnorm_ || iterations_ >= options_.max_iters;
      if (done || h_next == 0.0) return j + 1;  // h_next == 0: the Krylov space is invariant
      ops_.scale(1.0 / h_next, column(j + 1));
    }
    return m_;
  }

  /// Orthogonalises w = V_{j+1} against V_0..V_j (column j of H), returns ||w|| afterwards.
  /// One multi-dot (the projections and w.w) and one Allreduce; a second pass only when the
  /// projection removed more than half of ||w||^2 (Daniel-Gragg-Kaufman-Stewart: then the result
  /// may have lost orthogonality to cancellation). The norm after a pass is ||w||^2 - sum h^2
  /// (Pythagoras), exact enough whenever that keeps at least half of ||w||^2.
  double orthogonalise(int j) {
    const int k = j + 1;
    double remaining = project_out(k);
    for (int i = 0; i < k; ++i) H(i, j) = proj_[i];
    if (!(remaining > 0.5 * proj_[k])) {
      remaining = project_out(k);
      for (int i = 0; i < k; ++i) H(i, j) += proj_[i];
    }
    return std::sqrt(std::max(remaining, 0.0));  // NaN stays NaN
  }

  /// One Gram-Schmidt pass on w = V_k against V_0..V_{k-1}: proj_ = (V^T w, w.w), w -= V (V^T w).
  /// Returns ||w||^2 after the pass.
  double project_out(int k) {
    double* w = column(k);
    ops_.dots(k, column(0), w, /*with_self=*/true, proj_.data());
    double removed = 0;
    for (int i = 0; i < k; ++i) {
      coeff_[i] = -proj_[i];
      removed += proj_[i] * proj_[i];
    }
    ops_.combine(k, column(0), coeff_.data(), w);
    return proj_[k] - removed;
  }

  /// Applies the earlier Givens rotations to column j of H, makes the one that zeroes
  /// H(j+1, j) = h_next, updates g. Returns |g_{j+1}|, the residual norm of the new iterate.
  double rotate(int j, double h_next) {
    for (int i = 0; i < j; ++i) {
      const double a = H(i, j), b = H(i + 1, j);
      H(i, j) = cs_[i] * a + sn_[i] * b;
      H(i + 1, j) = -sn_[i] * a + cs_[i] * b;
    }
    const double rho = std::hypot(H(j, j), h_next);
    cs_[j] = rho == 0.0 ? 1.0 : H(j, j) / rho;
    sn_[j] = rho == 0.0 ? 0.0 : h_next / rho;
    H(j, j) = rho;
    g_[j + 1] = -sn_[j] * g_[j];
    g_[j] = cs_[j] * g_[j];
    return std::abs(g_[j + 1]);
  }

  /// x += M^-1 V y with y solving the k x k triangular system H y = g.
  void update_solution(int k) {
    for (int i = k - 1; i >= 0; --i) {
      double s = g_[i];
      for (int l = i + 1; l < k; ++l) s -= H(i, l) * y_[l];
      y_[i] = s / H(i, i);
    }
    ops_.fill(work_.data(), 0.0);
    ops_.combine(k, column(0), y_.data(), work_.data());
    if (minv_) ops_.multiply(minv_, work_.data(), work_.data());
    ops_.axpy(1.0, work_.data(), x_);
  }

  vector_ops& ops_;
  detail::spmv_runner spmv_;
  const solver_options& options_;
  solve_result& result_;
  const double* b_;
  double* x_;
  double bnorm_;
  std::int64_t n_;
  int m_;
  backend_array inv_diag_, basis_, work_;
  const double* minv_ = nullptr;
  std::vector<double> H_, cs_, sn_, g_, y_, proj_, coeff_;
  int iterations_ = 0;
};

}  // namespace

solve_result gmres(distributed_matrix<double>& A, const double* b, double* x, const solver_options& options) {
  const double t0 = MPI_Wtime();
  detail::check_options(options, name);
  DSPMV_REQUIRE(options.restart >= 1 && options.restart <= max_restart,
                std::string(name) + ": restart must be in [1, " + std::to_string(max_restart) + "], got " +
                    std::to_string(options.restart));
  solve_result result;
  // dots() of the last Arnoldi step returns m projections and w.w.
  vector_ops ops(A.where(), A.comm(), A.local_rows(), std::max(options.restart + 1, 2), options.stream);
  const double bnorm = ops.norm2(b);
  detail::require_finite(bnorm, name, "||b||", 0);
  if (bnorm == 0) {
    detail::solve_zero_rhs(result, ops, x, options, t0);
    return result;
  }
  gmres_run solve(A, ops, b, x, options, result, bnorm);
  detail::finish_setup(result, ops, t0);
  solve.run();
  detail::finish_timing(result, ops, t0);
  return result;
}

}  // namespace distspmv::solvers
