// Preconditioned conjugate gradients on a distributed_matrix (DESIGN.md §9).
#pragma once

#include "dist/distributed_matrix.hpp"
#include "dist/solvers/solver.hpp"

namespace distspmv::solvers {

/// Solves A x = b for a symmetric positive definite A with CG, Jacobi-preconditioned unless
/// options.jacobi is false. Collective over A.comm().
///
/// b and x hold A.local_rows() entries in the partitioned layout, in the matrix's memory space
/// (device pointers on the CUDA backend). x is the initial guess on entry (zeros are fine) and the
/// solution on return. Per iteration: one SpMV, two MPI_Allreduce (p.Ap; then r.z and r.r
/// together, computed in the same pass that updates x, r and z).
///
/// Throws distspmv::error on every rank (the tests are on globally reduced values) when A is seen
/// not to be SPD (p^T A p <= 0, or a diagonal entry <= 0 with Jacobi), and when a residual
/// becomes NaN or infinite. b == 0 returns x = 0, converged, after 0 iterations.
solve_result cg(distributed_matrix<double>& A, const double* b, double* x, const solver_options& options = {});

}  // namespace distspmv::solvers
