/* The C API (dist/capi/distspmv.h) from plain C11 on the host backend, at any rank count.
 *
 * A 2-D 5-point Laplacian on a G x G grid is handed in by contiguous rows (int64 global ids) and
 * applied in the partitioned layout; y is compared with the stencil evaluated directly. Then: the
 * layout moves, alpha/beta, update_values, the queries, and the error paths (NULL pointers, dead
 * handles, bad enums, a column id out of range on one rank, which must fail on every rank).
 * Exit status 0 only when every check passed on every rank. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dist/capi/distspmv.h"

static int g_rank = 0;
static int g_failures = 0;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      ++g_failures;                                                        \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", g_rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
    }                                                                      \
  } while (0)

/* A call that must succeed; prints the library's message otherwise. */
#define OK(call)                                                                        \
  do {                                                                                  \
    int ok_rc_ = (call);                                                                \
    CHECK(ok_rc_ == DISTSPMV_SUCCESS, "%s returned %s: %s", #call,                      \
          distspmv_status_name(ok_rc_), distspmv_last_error());                         \
  } while (0)

/* A call that must fail with `code` and leave a message that mentions `needle`. */
#define EXPECT_FAIL(code, needle, call)                                                  \
  do {                                                                                   \
    int ef_rc_ = (call);                                                                 \
    const char* ef_msg_ = distspmv_last_error();                                         \
    CHECK(ef_rc_ == (code), "%s returned %s, expected %s (message: %s)", #call,          \
          distspmv_status_name(ef_rc_), distspmv_status_name(code), ef_msg_);            \
    CHECK(ef_msg_ != NULL && ef_msg_[0] != '\0', "%s left an empty message", #call);     \
    CHECK(ef_msg_ != NULL && strstr(ef_msg_, (needle)) != NULL,                          \
          "%s: message '%s' does not mention '%s'", #call, ef_msg_ ? ef_msg_ : "(null)", (needle)); \
  } while (0)

/* ---- the test matrix --------------------------------------------------------------------- */

typedef struct {
  int64_t n, first, rows; /* global size, this rank's caller range */
  int64_t* row_ptr;
  int64_t* cols;
  double* vals;
} local_csr;

/* Rows [first, first + rows) of the 5-point Laplacian on a g x g grid (4 on the diagonal, -1 to
 * the four neighbours), columns sorted. */
static local_csr laplacian_2d_rows(int64_t g, int64_t first, int64_t rows) {
  local_csr a;
  a.n = g * g;
  a.first = first;
  a.rows = rows;
  a.row_ptr = (int64_t*)malloc((size_t)(rows + 1) * sizeof(int64_t));
  a.cols = (int64_t*)malloc((size_t)(5 * rows + 1) * sizeof(int64_t));
  a.vals = (double*)malloc((size_t)(5 * rows + 1) * sizeof(double));
  int64_t k = 0;
  a.row_ptr[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = first + r, i = row / g, j = row % g;
    if (i > 0) { a.cols[k] = row - g; a.vals[k++] = -1.0; }
    if (j > 0) { a.cols[k] = row - 1; a.vals[k++] = -1.0; }
    a.cols[k] = row; a.vals[k++] = 4.0;
    if (j < g - 1) { a.cols[k] = row + 1; a.vals[k++] = -1.0; }
    if (i < g - 1) { a.cols[k] = row + g; a.vals[k++] = -1.0; }
    a.row_ptr[r + 1] = k;
  }
  return a;
}

/* 1-D Laplacian (2, -1) rows [first, first + rows) of size n. */
static local_csr laplacian_1d_rows(int64_t n, int64_t first, int64_t rows) {
  local_csr a;
  a.n = n;
  a.first = first;
  a.rows = rows;
  a.row_ptr = (int64_t*)malloc((size_t)(rows + 1) * sizeof(int64_t));
  a.cols = (int64_t*)malloc((size_t)(3 * rows + 1) * sizeof(int64_t));
  a.vals = (double*)malloc((size_t)(3 * rows + 1) * sizeof(double));
  int64_t k = 0;
  a.row_ptr[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = first + r;
    if (row > 0) { a.cols[k] = row - 1; a.vals[k++] = -1.0; }
    a.cols[k] = row; a.vals[k++] = 2.0;
    if (row < n - 1) { a.cols[k] = row + 1; a.vals[k++] = -1.0; }
    a.row_ptr[r + 1] = k;
  }
  return a;
}

static void free_csr(local_csr* a) {
  free(a->row_ptr);
  free(a->cols);
  free(a->vals);
}

/* The x used everywhere, as a function of the global (caller) row id. */
static double x_of(int64_t row) { return 1.0 + 0.5 * sin(0.37 * (double)row) + 1e-3 * (double)(row % 7); }

/* Direct evaluation of (A x)_row for the 2-D Laplacian. */
static double laplacian_2d_times_x(int64_t g, int64_t row) {
  const int64_t i = row / g, j = row % g;
  double s = 4.0 * x_of(row);
  if (i > 0) s -= x_of(row - g);
  if (j > 0) s -= x_of(row - 1);
  if (j < g - 1) s -= x_of(row + 1);
  if (i < g - 1) s -= x_of(row + g);
  return s;
}

static double laplacian_1d_times_x(int64_t n, int64_t row) {
  double s = 2.0 * x_of(row);
  if (row > 0) s -= x_of(row - 1);
  if (row < n - 1) s -= x_of(row + 1);
  return s;
}

/* max |a - scale*b| / max |scale*b| over all ranks. */
static double global_rel_error(const double* a, const double* b, double scale, int64_t n, MPI_Comm comm) {
  double loc[2] = {0.0, 0.0}, glob[2];
  for (int64_t i = 0; i < n; ++i) {
    const double d = fabs(a[i] - scale * b[i]);
    if (d > loc[0] || isnan(d)) loc[0] = isnan(d) ? INFINITY : d;
    if (fabs(scale * b[i]) > loc[1]) loc[1] = fabs(scale * b[i]);
  }
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, comm);
  return glob[1] > 0 ? glob[0] / glob[1] : glob[0];
}

/* Creates with METIS when the build has it, else with the block partitioner. */
static int create_laplacian(const local_csr* a, distspmv_options* opts, distspmv_matrix* out) {
  int rc = distspmv_create_csr(MPI_COMM_WORLD, a->n, a->first, a->rows, a->row_ptr, a->cols, a->vals,
                               DISTSPMV_MEMORY_HOST, opts, out);
  if (rc == DISTSPMV_ERROR_NOT_COMPILED && opts->partitioner == DISTSPMV_PARTITION_METIS) {
    if (g_rank == 0) printf("METIS not in this build (%s): block partitioner\n", distspmv_last_error());
    opts->partitioner = DISTSPMV_PARTITION_BLOCK;
    rc = distspmv_create_csr(MPI_COMM_WORLD, a->n, a->first, a->rows, a->row_ptr, a->cols, a->vals,
                             DISTSPMV_MEMORY_HOST, opts, out);
  }
  return rc;
}

/* ---- the checks ------------------------------------------------------------------------- */

/* float_values: mixed precision (the Laplacian's 4 and -1 are exact in float, so y is too). */
static void test_laplacian_2d(int size, distspmv_order order, int float_values) {
  const int64_t g = 23, n = g * g;
  const int64_t first = n * g_rank / size, last = n * (g_rank + 1) / size, rows = last - first;
  local_csr a = laplacian_2d_rows(g, first, rows);

  distspmv_options opts;
  distspmv_options_default(&opts);
  opts.backend = DISTSPMV_BACKEND_HOST;
  opts.format = "csr";
  opts.order = order;
  opts.float_values = float_values;
  distspmv_matrix A = NULL;
  OK(create_laplacian(&a, &opts, &A));
  if (!A) {
    free_csr(&a);
    return;
  }

  int64_t global_rows = -1, local_rows = -1, first_row = -1, caller_rows = -1, caller_first = -1;
  int64_t caller_nnz = -1, global_nnz = -1;
  OK(distspmv_global_rows(A, &global_rows));
  OK(distspmv_local_rows(A, &local_rows));
  OK(distspmv_first_row(A, &first_row));
  OK(distspmv_caller_rows(A, &caller_rows));
  OK(distspmv_caller_first_row(A, &caller_first));
  OK(distspmv_caller_nnz(A, &caller_nnz));
  OK(distspmv_global_nnz(A, &global_nnz));
  CHECK(global_rows == n, "global_rows %lld", (long long)global_rows);
  CHECK(caller_rows == rows && caller_first == first, "caller range %lld+%lld", (long long)caller_first,
        (long long)caller_rows);
  CHECK(caller_nnz == a.row_ptr[rows], "caller_nnz %lld", (long long)caller_nnz);
  CHECK(global_nnz == 5 * n - 4 * g, "global_nnz %lld", (long long)global_nnz);
  int64_t sum_rows = 0, scan = 0;
  MPI_Allreduce(&local_rows, &sum_rows, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(&local_rows, &scan, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) scan = 0;
  CHECK(sum_rows == n, "local rows sum to %lld", (long long)sum_rows);
  CHECK(first_row == scan, "first_row %lld, rows before this rank %lld", (long long)first_row, (long long)scan);

  const size_t nc = (size_t)(rows > 0 ? rows : 1), np = (size_t)(local_rows > 0 ? local_rows : 1);
  double* xc = (double*)malloc(nc * sizeof(double));
  double* yc = (double*)malloc(nc * sizeof(double));
  double* ref = (double*)malloc(nc * sizeof(double));
  double* back = (double*)malloc(nc * sizeof(double));
  double* xp = (double*)malloc(np * sizeof(double));
  double* yp = (double*)malloc(np * sizeof(double));
  double* diag = (double*)malloc(np * sizeof(double));
  int64_t* ids = (int64_t*)malloc(np * sizeof(int64_t));
  for (int64_t i = 0; i < rows; ++i) {
    xc[i] = x_of(first + i);
    ref[i] = laplacian_2d_times_x(g, first + i);
  }

  /* layout moves: the partitioned x is x_of(caller id of each owned row); the round trip is exact */
  OK(distspmv_to_partitioned(A, xc, xp));
  OK(distspmv_owned_caller_ids(A, ids));
  for (int64_t i = 0; i < local_rows; ++i)
    CHECK(ids[i] >= 0 && ids[i] < n && xp[i] == x_of(ids[i]), "owned row %lld: caller id %lld, x %g", (long long)i,
          (long long)ids[i], xp[i]);
  OK(distspmv_from_partitioned(A, xp, back));
  for (int64_t i = 0; i < rows; ++i) CHECK(back[i] == xc[i], "round trip row %lld: %g != %g", (long long)i, back[i], xc[i]);

  /* y = A x, with NaN in y beforehand (beta = 0 overwrites) */
  for (int64_t i = 0; i < local_rows; ++i) yp[i] = NAN;
  OK(distspmv_apply(A, 1.0, xp, 0.0, yp, NULL));
  OK(distspmv_from_partitioned(A, yp, yc));
  double err = global_rel_error(yc, ref, 1.0, rows, MPI_COMM_WORLD);
  CHECK(err <= 1e-12, "A x: relative error %.3e", err);

  /* y = 3 A x - 2 y = A x again */
  OK(distspmv_apply(A, 3.0, xp, -2.0, yp, NULL));
  OK(distspmv_from_partitioned(A, yp, yc));
  err = global_rel_error(yc, ref, 1.0, rows, MPI_COMM_WORLD);
  CHECK(err <= 1e-12, "3 A x - 2 A x: relative error %.3e", err);

  /* diagonal */
  OK(distspmv_diagonal(A, diag));
  for (int64_t i = 0; i < local_rows; ++i) CHECK(diag[i] == 4.0, "diagonal %lld = %g", (long long)i, diag[i]);

  /* halo statistics and names */
  distspmv_halo_stats hs;
  memset(&hs, 0xff, sizeof hs);
  OK(distspmv_halo_stats_get(A, &hs));
  CHECK(hs.rows == local_rows, "stats rows %lld", (long long)hs.rows);
  CHECK(hs.interior_rows + hs.boundary_rows == local_rows, "interior %lld + boundary %lld",
        (long long)hs.interior_rows, (long long)hs.boundary_rows);
  int64_t nnz_sum = 0;
  MPI_Allreduce(&hs.nnz, &nnz_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(nnz_sum == global_nnz, "stats nnz sum %lld", (long long)nnz_sum);
  CHECK(size > 1 || (hs.ghosts == 0 && hs.neighbours == 0 && hs.edge_cut == 0), "one rank has a halo");
  CHECK(size == 1 || hs.halo_entries_total > 0, "no halo at %d ranks", size);
  CHECK(hs.nnz_imbalance >= 1.0, "imbalance %g", hs.nnz_imbalance);
  const char* name = NULL;
  OK(distspmv_transport_name(A, &name));
  CHECK(name != NULL && name[0] != '\0', "empty transport name");
  if (g_rank == 0 && name) printf("2-D Laplacian %lld rows: transport %s", (long long)n, name);
  name = NULL;
  OK(distspmv_format_name(A, &name));
  CHECK(name != NULL && strcmp(name, "csr") == 0, "format %s", name ? name : "(null)");
  if (g_rank == 0 && name) printf(", format %s, edge cut %lld\n", name, (long long)hs.edge_cut);
  MPI_Comm mcomm = MPI_COMM_NULL;
  OK(distspmv_comm(A, &mcomm));
  int msize = 0;
  if (mcomm != MPI_COMM_NULL) MPI_Comm_size(mcomm, &msize);
  CHECK(msize == size, "matrix communicator has %d ranks", msize);

  /* update_values: twice the values give twice y */
  double* vals2 = (double*)malloc((size_t)(a.row_ptr[rows] + 1) * sizeof(double));
  for (int64_t k = 0; k < a.row_ptr[rows]; ++k) vals2[k] = 2.0 * a.vals[k];
  OK(distspmv_update_values(A, vals2, DISTSPMV_MEMORY_HOST));
  OK(distspmv_apply(A, 1.0, xp, 0.0, yp, NULL));
  OK(distspmv_from_partitioned(A, yp, yc));
  err = global_rel_error(yc, ref, 2.0, rows, MPI_COMM_WORLD);
  CHECK(err <= 1e-12, "after update_values(2 a): relative error %.3e against 2 A x", err);
  OK(distspmv_diagonal(A, diag));
  for (int64_t i = 0; i < local_rows; ++i) CHECK(diag[i] == 8.0, "diagonal after update %lld = %g", (long long)i, diag[i]);

  /* argument errors of local calls: right code, a message naming function and argument */
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "distspmv_local_rows", distspmv_local_rows(A, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'out'", distspmv_global_rows(A, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'name'", distspmv_transport_name(A, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'out'", distspmv_halo_stats_get(A, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'matrix'", distspmv_global_rows(NULL, &global_rows));
  /* every rank owns rows here (n >= 4 * ranks), so NULL vectors are errors on every rank */
  CHECK(local_rows > 0 && rows > 0, "rank without rows");
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "distspmv_apply", distspmv_apply(A, 1.0, NULL, 0.0, yp, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'x'", distspmv_apply(A, 1.0, NULL, 0.0, yp, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'y'", distspmv_apply(A, 1.0, xp, 0.0, NULL, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "same array", distspmv_apply(A, 1.0, yp, 0.0, yp, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'matrix'", distspmv_apply(NULL, 1.0, xp, 0.0, yp, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'caller'", distspmv_to_partitioned(A, NULL, xp));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'partitioned'", distspmv_to_partitioned(A, xc, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'caller'", distspmv_from_partitioned(A, xp, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'values'", distspmv_update_values(A, NULL, DISTSPMV_MEMORY_HOST));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'space'", distspmv_update_values(A, vals2, (distspmv_memory_space)7));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'diag'", distspmv_diagonal(A, NULL));
  /* the matrix still works after the failures */
  OK(distspmv_apply(A, 0.5, xp, 0.0, yp, NULL));
  OK(distspmv_from_partitioned(A, yp, yc));
  err = global_rel_error(yc, ref, 1.0, rows, MPI_COMM_WORLD);
  CHECK(err <= 1e-12, "after the failed calls: relative error %.3e", err);

  /* a destroyed handle is reported, never used */
  distspmv_matrix B = A;
  OK(distspmv_destroy(&A));
  CHECK(A == NULL, "destroy did not clear the handle");
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "not a live", distspmv_apply(B, 1.0, xp, 0.0, yp, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "not a live", distspmv_local_rows(B, &local_rows));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "distspmv_destroy", distspmv_destroy(&B));
  OK(distspmv_destroy(&A)); /* NULL handle: nothing to do */
  OK(distspmv_destroy(NULL));

  free(vals2);
  free(xc); free(yc); free(ref); free(back); free(xp); free(yp); free(diag); free(ids);
  free_csr(&a);
}

/* A rank may hand in no rows at all (rank 0 here, with NULL host arrays). */
static void test_empty_caller_rank(int size) {
  const int64_t n = 61;
  int64_t first = 0, rows = 0;
  if (size == 1) {
    rows = n;
  } else if (g_rank > 0) {
    first = n * (g_rank - 1) / (size - 1);
    rows = n * g_rank / (size - 1) - first;
  }
  local_csr a = laplacian_1d_rows(n, first, rows);
  distspmv_options opts;
  distspmv_options_default(&opts);
  opts.backend = DISTSPMV_BACKEND_HOST;
  distspmv_matrix A = NULL;
  int rc;
  if (rows == 0)
    rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, 0, NULL, NULL, NULL, DISTSPMV_MEMORY_HOST, &opts, &A);
  else
    rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &opts, &A);
  if (rc == DISTSPMV_ERROR_NOT_COMPILED) { /* no METIS: block */
    opts.partitioner = DISTSPMV_PARTITION_BLOCK;
    rc = rows == 0 ? distspmv_create_csr(MPI_COMM_WORLD, n, first, 0, NULL, NULL, NULL, DISTSPMV_MEMORY_HOST, &opts, &A)
                   : distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals,
                                         DISTSPMV_MEMORY_HOST, &opts, &A);
  }
  CHECK(rc == DISTSPMV_SUCCESS, "create with an empty rank: %s: %s", distspmv_status_name(rc), distspmv_last_error());
  if (A) {
    int64_t local_rows = 0;
    OK(distspmv_local_rows(A, &local_rows));
    double* xc = (double*)malloc((size_t)(rows + 1) * sizeof(double));
    double* yc = (double*)malloc((size_t)(rows + 1) * sizeof(double));
    double* ref = (double*)malloc((size_t)(rows + 1) * sizeof(double));
    double* xp = (double*)malloc((size_t)(local_rows + 1) * sizeof(double));
    double* yp = (double*)malloc((size_t)(local_rows + 1) * sizeof(double));
    for (int64_t i = 0; i < rows; ++i) {
      xc[i] = x_of(first + i);
      ref[i] = laplacian_1d_times_x(n, first + i);
    }
    /* NULL is fine for an empty side */
    OK(distspmv_to_partitioned(A, rows ? xc : NULL, local_rows ? xp : NULL));
    OK(distspmv_apply(A, 1.0, local_rows ? xp : NULL, 0.0, local_rows ? yp : NULL, NULL));
    OK(distspmv_from_partitioned(A, local_rows ? yp : NULL, rows ? yc : NULL));
    const double err = global_rel_error(yc, ref, 1.0, rows, MPI_COMM_WORLD);
    CHECK(err <= 1e-12, "1-D Laplacian with an empty rank: relative error %.3e", err);
    OK(distspmv_destroy(&A));
    free(xc); free(yc); free(ref); free(xp); free(yp);
  }
  free_csr(&a);
}

/* Errors of the collective create calls come back on every rank, none hangs. */
static void test_create_errors(int size) {
  const int64_t g = 8, n = g * g;
  const int64_t first = n * g_rank / size, rows = n * (g_rank + 1) / size - first;
  local_csr a = laplacian_2d_rows(g, first, rows);
  distspmv_options opts;
  distspmv_options_default(&opts);
  opts.backend = DISTSPMV_BACKEND_HOST;
  opts.partitioner = DISTSPMV_PARTITION_BLOCK;
  distspmv_matrix A = (distspmv_matrix)&a; /* garbage that a failing create must clear */

  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'out'",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &opts, NULL));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'comm'",
              distspmv_create_csr(MPI_COMM_NULL, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &opts, &A));
  CHECK(A == NULL, "failed create left a handle");

  /* NULL row_ptr on the last rank only: every rank fails with its text */
  A = (distspmv_matrix)&a;
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'row_ptr'",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, g_rank == size - 1 ? NULL : a.row_ptr, a.cols, a.vals,
                                  DISTSPMV_MEMORY_HOST, &opts, &A));
  CHECK(A == NULL, "failed create left a handle");
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'values'",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, g_rank == 0 ? NULL : a.vals,
                                  DISTSPMV_MEMORY_HOST, &opts, &A));

  /* enums out of range */
  distspmv_options bad = opts;
  bad.backend = (distspmv_backend)42;
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "backend",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &bad, &A));
  bad = opts;
  bad.order = (distspmv_order)9;
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "order",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &bad, &A));
  bad = opts;
  bad.transport = (distspmv_transport)-3;
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "transport",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &bad, &A));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'space'",
              distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, (distspmv_memory_space)5, &opts, &A));

  /* a column id out of range on the last rank only: bad input on every rank */
  const int64_t saved = a.cols[a.row_ptr[rows] - 1];
  if (g_rank == size - 1) a.cols[a.row_ptr[rows] - 1] = n + 5;
  A = (distspmv_matrix)&a;
  int rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &opts, &A);
  CHECK(rc == DISTSPMV_ERROR_BAD_INPUT, "column out of range: %s: %s", distspmv_status_name(rc), distspmv_last_error());
  CHECK(distspmv_last_error()[0] != '\0', "column out of range: empty message");
  CHECK(A == NULL, "failed create left a handle");
  if (g_rank == 0) printf("column out of range: %s\n", distspmv_last_error());
  a.cols[a.row_ptr[rows] - 1] = saved;

  /* unsorted columns (first row of every rank swapped) */
  int64_t t = a.cols[0];
  a.cols[0] = a.cols[1];
  a.cols[1] = t;
  rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &opts, &A);
  CHECK(rc == DISTSPMV_ERROR_BAD_INPUT, "unsorted columns: %s: %s", distspmv_status_name(rc), distspmv_last_error());
  a.cols[1] = a.cols[0];
  a.cols[0] = t;

  /* caller ranges that do not cover [0, n) */
  rc = distspmv_create_csr(MPI_COMM_WORLD, n + 1, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &opts, &A);
  CHECK(rc != DISTSPMV_SUCCESS, "ranges not covering the rows were accepted");
  CHECK(distspmv_last_error()[0] != '\0', "ranges: empty message");
  if (A) distspmv_destroy(&A);

  /* the CUDA backend in a build without CUDA */
  if (!distspmv_has_cuda()) {
    distspmv_options cuda = opts;
    cuda.backend = DISTSPMV_BACKEND_CUDA;
    rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, a.row_ptr, a.cols, a.vals, DISTSPMV_MEMORY_HOST, &cuda, &A);
    CHECK(rc == DISTSPMV_ERROR_NOT_COMPILED, "CUDA backend without CUDA: %s: %s", distspmv_status_name(rc),
          distspmv_last_error());
    if (A) distspmv_destroy(&A);
  }

  /* sources */
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'source'", distspmv_create_source(MPI_COMM_WORLD, NULL, &opts, &A));
  EXPECT_FAIL(DISTSPMV_ERROR_INVALID_ARGUMENT, "'out'", distspmv_create_source(MPI_COMM_WORLD, "gen:poisson3d:4", &opts, NULL));
  rc = distspmv_create_source(MPI_COMM_WORLD, "gen:nonsense:3", &opts, &A);
  CHECK(rc == DISTSPMV_ERROR_BAD_INPUT, "bad generator: %s: %s", distspmv_status_name(rc), distspmv_last_error());
  rc = distspmv_create_source(MPI_COMM_WORLD, "/nonexistent/distspmv-c-api-test.mtx", &opts, &A);
  CHECK(rc == DISTSPMV_ERROR_BAD_INPUT, "missing file: %s: %s", distspmv_status_name(rc), distspmv_last_error());
  CHECK(A == NULL, "failed create left a handle");

  free_csr(&a);
}

/* create_source on a generator: sizes, and apply on ones gives the row sums of the diagonal.
 * PT-Scotch may be missing from the build: then NOT_COMPILED on every rank. */
static void test_source(distspmv_partitioner partitioner) {
  distspmv_options opts;
  distspmv_options_default(&opts);
  opts.backend = DISTSPMV_BACKEND_HOST;
  opts.partitioner = partitioner;
  distspmv_matrix A = NULL;
  const int rc = distspmv_create_source(MPI_COMM_WORLD, "gen:poisson3d:6", &opts, &A);
  if (rc == DISTSPMV_ERROR_NOT_COMPILED && partitioner == DISTSPMV_PARTITION_PTSCOTCH) {
    if (g_rank == 0) printf("PT-Scotch not in this build: %s\n", distspmv_last_error());
    CHECK(A == NULL, "failed create left a handle");
    return;
  }
  OK(rc);
  if (!A) return;
  int64_t n = 0, local_rows = 0, caller_rows = 0, nnz = 0;
  OK(distspmv_global_rows(A, &n));
  OK(distspmv_local_rows(A, &local_rows));
  OK(distspmv_caller_rows(A, &caller_rows));
  OK(distspmv_global_nnz(A, &nnz));
  CHECK(n == 216, "gen:poisson3d:6 has %lld rows", (long long)n);
  CHECK(nnz == 7 * 216 - 6 * 36, "gen:poisson3d:6 has %lld entries", (long long)nnz);
  double* ones = (double*)malloc((size_t)(local_rows + 1) * sizeof(double));
  double* y = (double*)malloc((size_t)(local_rows + 1) * sizeof(double));
  for (int64_t i = 0; i < local_rows; ++i) ones[i] = 1.0;
  OK(distspmv_apply(A, 1.0, ones, 0.0, y, NULL));
  double local_sum = 0, sum = 0;
  for (int64_t i = 0; i < local_rows; ++i) local_sum += y[i];
  MPI_Allreduce(&local_sum, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  /* 6 on the diagonal, -1 per neighbour: the entries sum to 7 n - nnz = 216 */
  CHECK(fabs(sum - 216.0) < 1e-9, "sum of A * ones is %.17g, expected 216", sum);
  OK(distspmv_destroy(&A));
  free(ones);
  free(y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CHECK(strcmp(distspmv_status_name(DISTSPMV_SUCCESS), "DISTSPMV_SUCCESS") == 0, "status name");
  CHECK(strcmp(distspmv_status_name(DISTSPMV_ERROR_BAD_INPUT), "DISTSPMV_ERROR_BAD_INPUT") == 0, "status name");
  CHECK(distspmv_last_error() != NULL, "last_error is NULL");
  distspmv_options_default(NULL); /* harmless */
  {
    distspmv_options d;
    distspmv_options_default(&d);
    CHECK(d.cuda_graphs == 1 && d.float_values == 0, "cuda_graphs on and float_values off by default");
  }

  test_laplacian_2d(size, DISTSPMV_ORDER_NONE, 0);
  test_laplacian_2d(size, DISTSPMV_ORDER_RCM, 0);
  test_laplacian_2d(size, DISTSPMV_ORDER_NONE, 1);
  test_empty_caller_rank(size);
  test_create_errors(size);
  test_source(DISTSPMV_PARTITION_BLOCK);
  test_source(DISTSPMV_PARTITION_PTSCOTCH);
  test_source(DISTSPMV_PARTITION_LP);

  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("c_api_test at %d ranks: %d failed checks\n", size, failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
