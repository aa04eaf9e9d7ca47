/* A distspmv matrix as a PETSc MATSHELL (DESIGN.md §9), through the C API (dist/capi/distspmv.h).
 *
 * The shell lives in distspmv's PARTITIONED row layout: on each rank its local size is
 * distspmv_local_rows(), the rows METIS (or the block partitioner) gave that rank, so MatMult is
 * one distspmv_apply with no data movement. Vectors of the caller's layout (the rows each rank
 * handed to distspmv_create_csr, or read) move in and out with DistspmvVecToPartitioned /
 * DistspmvVecFromPartitioned. (The block partitioner keeps the global order but picks its own
 * nnz-balanced ranges, so even then the local sizes generally differ from the caller's.)
 *
 * Operations: MATOP_MULT, MATOP_MULT_ADD and MATOP_GET_DIAGONAL (so PCJACOBI works), on host
 * Vecs (VECSTANDARD/VECMPI). The distspmv matrix may use either backend: on the CUDA backend
 * apply() stages host vectors through device buffers.
 *
 *   Mat A;
 *   DistspmvMatCreateShell(PETSC_COMM_WORLD, handle, PETSC_TRUE, &A); // A owns the handle now
 *   KSPSetOperators(ksp, A, A);  PCSetType(pc, PCJACOBI);
 *   MatCreateVecs(A, &x, &b);    DistspmvVecToPartitioned(handle, b_caller, b);
 *   KSPSolve(ksp, b, x);         DistspmvVecFromPartitioned(handle, x, x_caller);
 *   MatDestroy(&A);              // destroys the handle too (collective)
 */
#ifndef DISTSPMV_PETSC_H
#define DISTSPMV_PETSC_H

#include <petscmat.h>

#include "dist/capi/distspmv.h"

/* Collective on comm (whose ranks must be those of the distspmv matrix, in the same order).
 * With take_ownership, MatDestroy destroys the distspmv handle; otherwise the caller destroys it
 * after the Mat. */
PETSC_EXTERN PetscErrorCode DistspmvMatCreateShell(MPI_Comm comm, distspmv_matrix matrix, PetscBool take_ownership,
                                                   Mat* mat);

/* The distspmv handle behind a shell made by DistspmvMatCreateShell. */
PETSC_EXTERN PetscErrorCode DistspmvMatShellGetMatrix(Mat mat, distspmv_matrix* matrix);

/* Collective: caller layout (local size distspmv_caller_rows) -> partitioned layout (local size
 * distspmv_local_rows), and back. */
PETSC_EXTERN PetscErrorCode DistspmvVecToPartitioned(distspmv_matrix matrix, Vec caller, Vec partitioned);
PETSC_EXTERN PetscErrorCode DistspmvVecFromPartitioned(distspmv_matrix matrix, Vec partitioned, Vec caller);

#endif /* DISTSPMV_PETSC_H */
