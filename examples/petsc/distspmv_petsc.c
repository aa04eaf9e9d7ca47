/* MATSHELL over a distspmv matrix (see distspmv_petsc.h). Plain C, PETSc >= 3.17. */
#include "examples/petsc/distspmv_petsc.h"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
#error "the distspmv PETSc bridge needs a real double-precision PETSc (PetscScalar = double)"
#endif

#if PETSC_VERSION_LT(3, 19, 0)
#define DSPMV_PETSC_OK 0
#else
#define DSPMV_PETSC_OK PETSC_SUCCESS
#endif

typedef struct {
  distspmv_matrix matrix;
  PetscBool owns;
} DistspmvShellCtx;

/* A failing distspmv call becomes a PETSc error carrying distspmv's message. */
#define DSPMV_PETSC_CALL(call)                                                                      \
  do {                                                                                              \
    const int dspmv_rc_ = (call);                                                                   \
    PetscCheck(dspmv_rc_ == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s failed (%s): %s", \
               #call, distspmv_status_name(dspmv_rc_), distspmv_last_error());                      \
  } while (0)

static PetscErrorCode MatMult_Distspmv(Mat mat, Vec x, Vec y) {
  DistspmvShellCtx* ctx = NULL;
  const PetscScalar* xa = NULL;
  PetscScalar* ya = NULL;
  int rc;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(mat, &ctx));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  rc = distspmv_apply(ctx->matrix, 1.0, xa, 0.0, ya, NULL);
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCheck(rc == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "distspmv_apply failed (%s): %s",
             distspmv_status_name(rc), distspmv_last_error());
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

/* z = y + A x */
static PetscErrorCode MatMultAdd_Distspmv(Mat mat, Vec x, Vec y, Vec z) {
  DistspmvShellCtx* ctx = NULL;
  const PetscScalar* xa = NULL;
  PetscScalar* za = NULL;
  int rc;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(mat, &ctx));
  if (y != z) PetscCall(VecCopy(y, z));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(z, &za));
  rc = distspmv_apply(ctx->matrix, 1.0, xa, 1.0, za, NULL);
  PetscCall(VecRestoreArray(z, &za));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCheck(rc == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "distspmv_apply failed (%s): %s",
             distspmv_status_name(rc), distspmv_last_error());
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

static PetscErrorCode MatGetDiagonal_Distspmv(Mat mat, Vec d) {
  DistspmvShellCtx* ctx = NULL;
  PetscScalar* da = NULL;
  int rc;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(mat, &ctx));
  PetscCall(VecGetArrayWrite(d, &da));
  rc = distspmv_diagonal(ctx->matrix, da);
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscCheck(rc == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "distspmv_diagonal failed (%s): %s",
             distspmv_status_name(rc), distspmv_last_error());
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

#if PETSC_VERSION_LT(3, 23, 0)
static PetscErrorCode DistspmvShellCtxDestroy(void* p) {
  DistspmvShellCtx* ctx = (DistspmvShellCtx*)p;
#else
static PetscErrorCode DistspmvShellCtxDestroy(void** pp) {
  DistspmvShellCtx* ctx = (DistspmvShellCtx*)*pp;
#endif
  PetscFunctionBeginUser;
  if (ctx) {
    if (ctx->owns) DSPMV_PETSC_CALL(distspmv_destroy(&ctx->matrix)); /* collective, as MatDestroy is */
    PetscCall(PetscFree(ctx));
  }
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

PetscErrorCode DistspmvMatCreateShell(MPI_Comm comm, distspmv_matrix matrix, PetscBool take_ownership, Mat* mat) {
  DistspmvShellCtx* ctx = NULL;
  int64_t local_rows = 0, global_rows = 0;

  PetscFunctionBeginUser;
  PetscCheck(mat != NULL, comm, PETSC_ERR_ARG_NULL, "DistspmvMatCreateShell: argument 'mat' is NULL");
  *mat = NULL;
  DSPMV_PETSC_CALL(distspmv_local_rows(matrix, &local_rows));
  DSPMV_PETSC_CALL(distspmv_global_rows(matrix, &global_rows));
  PetscCheck(global_rows <= (int64_t)PETSC_MAX_INT, comm, PETSC_ERR_SUP,
             "the distspmv matrix has %lld rows, more than this PETSc's PetscInt holds (configure PETSc with "
             "--with-64-bit-indices)",
             (long long)global_rows);
  PetscCall(PetscNew(&ctx));
  ctx->matrix = matrix;
  ctx->owns = take_ownership;
  PetscCall(MatCreateShell(comm, (PetscInt)local_rows, (PetscInt)local_rows, (PetscInt)global_rows,
                           (PetscInt)global_rows, ctx, mat));
  PetscCall(MatShellSetContextDestroy(*mat, DistspmvShellCtxDestroy));
  PetscCall(MatShellSetOperation(*mat, MATOP_MULT, (void (*)(void))MatMult_Distspmv));
  PetscCall(MatShellSetOperation(*mat, MATOP_MULT_ADD, (void (*)(void))MatMultAdd_Distspmv));
  PetscCall(MatShellSetOperation(*mat, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_Distspmv));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

PetscErrorCode DistspmvMatShellGetMatrix(Mat mat, distspmv_matrix* matrix) {
  DistspmvShellCtx* ctx = NULL;

  PetscFunctionBeginUser;
  PetscCheck(matrix != NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DistspmvMatShellGetMatrix: argument 'matrix' is NULL");
  PetscCall(MatShellGetContext(mat, &ctx));
  PetscCheck(ctx != NULL, PetscObjectComm((PetscObject)mat), PETSC_ERR_ARG_WRONG,
             "not a shell made by DistspmvMatCreateShell");
  *matrix = ctx->matrix;
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

/* Checks the local sizes, then one collective move between the layouts. */
static PetscErrorCode DistspmvVecMove(distspmv_matrix matrix, Vec from, Vec to, int to_partitioned) {
  int64_t caller_rows = 0, local_rows = 0;
  PetscInt n_from = 0, n_to = 0;
  const PetscScalar* fa = NULL;
  PetscScalar* ta = NULL;
  int rc;

  PetscFunctionBeginUser;
  DSPMV_PETSC_CALL(distspmv_caller_rows(matrix, &caller_rows));
  DSPMV_PETSC_CALL(distspmv_local_rows(matrix, &local_rows));
  PetscCall(VecGetLocalSize(from, &n_from));
  PetscCall(VecGetLocalSize(to, &n_to));
  const int64_t want_from = to_partitioned ? caller_rows : local_rows;
  const int64_t want_to = to_partitioned ? local_rows : caller_rows;
  PetscCheck((int64_t)n_from == want_from && (int64_t)n_to == want_to, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "%s: local sizes %" PetscInt_FMT " -> %" PetscInt_FMT ", expected %lld -> %lld",
             to_partitioned ? "DistspmvVecToPartitioned" : "DistspmvVecFromPartitioned", n_from, n_to,
             (long long)want_from, (long long)want_to);
  PetscCall(VecGetArrayRead(from, &fa));
  PetscCall(VecGetArrayWrite(to, &ta));
  rc = to_partitioned ? distspmv_to_partitioned(matrix, fa, ta) : distspmv_from_partitioned(matrix, fa, ta);
  PetscCall(VecRestoreArrayWrite(to, &ta));
  PetscCall(VecRestoreArrayRead(from, &fa));
  PetscCheck(rc == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "distspmv layout move failed (%s): %s",
             distspmv_status_name(rc), distspmv_last_error());
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

PetscErrorCode DistspmvVecToPartitioned(distspmv_matrix matrix, Vec caller, Vec partitioned) {
  PetscFunctionBeginUser;
  PetscCall(DistspmvVecMove(matrix, caller, partitioned, 1));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

PetscErrorCode DistspmvVecFromPartitioned(distspmv_matrix matrix, Vec partitioned, Vec caller) {
  PetscFunctionBeginUser;
  PetscCall(DistspmvVecMove(matrix, partitioned, caller, 0));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}
