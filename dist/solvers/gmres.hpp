// Restarted GMRES(m) on a distributed_matrix (DESIGN.md §9).
#pragma once

#include "dist/distributed_matrix.hpp"
#include "dist/solvers/solver.hpp"

namespace distspmv::solvers {

/// Solves A x = b for a general (non-symmetric) A with restarted GMRES(m), m = options.restart.
/// Collective over A.comm(). Same layout and memory rules for b and x as cg().
///
/// Preconditioning is on the RIGHT with Jacobi (A M^-1 u = b, x = M^-1 u, M = diag(A); a zero
/// diagonal entry is taken as 1, as PETSc's PCJACOBI does): the residual GMRES minimises is then
/// the true residual b - A x, so the convergence test needs no extra work and means what it says.
///
/// Arnoldi uses classical Gram-Schmidt with selective reorthogonalisation (CGS2 with the DGKS
/// test): the j+1 projections and ||w||^2 are one multi-dot and ONE MPI_Allreduce; a second
/// pass (one more Allreduce) runs only when the projection removed more than half of ||w||^2,
/// i.e. when cancellation may have cost orthogonality. Each cycle starts from the true residual,
/// and the solve ends only when the true residual reaches rtol.
///
/// Throws distspmv::error on every rank when a residual becomes NaN or infinite. b == 0 returns
/// x = 0, converged, after 0 iterations.
solve_result gmres(distributed_matrix<double>& A, const double* b, double* x, const solver_options& options = {});

}  // namespace distspmv::solvers
