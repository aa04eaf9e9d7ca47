// The comparison behind examples/petsc: one operator, two PETSc matrices.
//
//   * PETSc's own MPIAIJ, assembled from the rows in the CALLER's layout (each rank an even slice
//     of the rows, as read from the file or generator);
//   * the distspmv MATSHELL (distspmv_petsc.h), built from the very same arrays through the C
//     API, which lives in distspmv's PARTITIONED layout (METIS renumbers the rows).
//
// Why compare across layouts instead of forcing one: assembling the MPIAIJ in the partitioned
// layout would need the permuted rows (or MatCreateSubMatrix with distspmv_owned_caller_ids), and
// building distspmv with the block partitioner would only hide the layout question that every
// real user of METIS meets. Instead vectors cross with DistspmvVecToPartitioned /
// DistspmvVecFromPartitioned, which is what an application does too, and everything is compared
// in the caller's layout. Jacobi-preconditioned CG and GMRES are invariant under a symmetric
// permutation of the rows and columns, so in exact arithmetic both solves take the same steps;
// in floating point they differ only by the summation order inside each row.
#pragma once

#include <petscksp.h>

#include <string>
#include <vector>

#include "dist/capi/distspmv.h"

namespace distspmv_example {

struct compare_settings {
  std::string source = "gen:poisson3d:12";  ///< file (.mtx, .mtx.gz, .h5) or gen:KIND:ARGS
  distspmv_partitioner partitioner = DISTSPMV_PARTITION_METIS;  ///< falls back to block without METIS
  distspmv_backend backend = DISTSPMV_BACKEND_HOST;
  std::string format = "auto";
  double rtol = 1e-12;
  PetscInt max_it = 20000;
  std::vector<std::string> methods{KSPCG, KSPGMRES};  ///< each with PCJACOBI
};

struct solve_comparison {
  std::string ksp, pc;
  PetscInt its_shell = 0, its_aij = 0;
  std::string reason_shell, reason_aij;
  bool converged_shell = false, converged_aij = false;
  double solution_rel_diff = 0;      ///< ||x_shell - x_aij||_inf / ||x_aij||_inf (caller layout)
  double true_residual_shell = 0;    ///< ||b - A x||_2 / ||b||_2 with the MPIAIJ
  double true_residual_aij = 0;
  double error_shell = 0;            ///< ||x - x_true||_inf / ||x_true||_inf (b = A x_true)
  double seconds_shell = 0, seconds_aij = 0;
};

struct comparison {
  std::string source, partitioner, format, transport;
  long long global_rows = 0, global_nnz = 0;
  int ranks = 0;
  double matmult_rel_diff = 0;    ///< MatMult of the shell against the MPIAIJ on a random vector
  double matmult_add_rel_diff = 0;  ///< MatMultAdd of the shell (y + A x) against the same
  double diagonal_max_diff = 0;   ///< MatGetDiagonal of both
  std::vector<solve_comparison> solves;
};

/// Collective on comm: builds both matrices, compares MatMult and the diagonal, and solves
/// b = A x_true with every method on both.
PetscErrorCode compare_with_aij(MPI_Comm comm, const compare_settings& settings, comparison* out);

/// What fails the comparison: iteration counts differing by more than its_tolerance, solutions
/// differing by more than solution_tolerance (relative), MatMult by more than matmult_tolerance,
/// a diagonal entry differing, a solve that did not converge. Empty when all is well.
std::vector<std::string> check_comparison(const comparison& c, PetscInt its_tolerance = 1,
                                          double solution_tolerance = 1e-8, double matmult_tolerance = 1e-12);

/// Table on rank 0 of comm.
PetscErrorCode print_comparison(MPI_Comm comm, const comparison& c);

/// The comparison as a JSON document (call on any rank; the figures are equal on every rank).
std::string to_json(const comparison& c, const std::vector<std::string>& failures);

}  // namespace distspmv_example
