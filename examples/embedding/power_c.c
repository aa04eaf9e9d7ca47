/* Embedding distspmv in C: the largest eigenvalue of the 1-D Laplacian by power iteration, with
 * the C API (dist/capi/distspmv.h). Run: mpiexec -n 4 ./embed_power_c */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dist/capi/distspmv.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, status = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* this rank's rows of tridiag(-1, 2, -1), int64 offsets and global column ids */
  const int64_t n = 40, first = n * rank / size, rows = n * (rank + 1) / size - first;
  int64_t* row_ptr = malloc((size_t)(rows + 1) * sizeof *row_ptr);
  int64_t* cols = malloc((size_t)(3 * rows + 1) * sizeof *cols);
  double* vals = malloc((size_t)(3 * rows + 1) * sizeof *vals);
  int64_t k = 0;
  row_ptr[0] = 0;
  for (int64_t i = first; i < first + rows; ++i) {
    for (int64_t j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n) {
        cols[k] = j;
        vals[k++] = j == i ? 2.0 : -1.0;
      }
    row_ptr[i - first + 1] = k;
  }

  distspmv_options opts;
  distspmv_options_default(&opts);
  opts.backend = DISTSPMV_BACKEND_HOST; /* DISTSPMV_BACKEND_CUDA (the default): one GPU per rank */
  distspmv_matrix A = NULL;
  int rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, row_ptr, cols, vals, DISTSPMV_MEMORY_HOST, &opts, &A);
  if (rc == DISTSPMV_ERROR_NOT_COMPILED) { /* a build without METIS */
    opts.partitioner = DISTSPMV_PARTITION_BLOCK;
    rc = distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, row_ptr, cols, vals, DISTSPMV_MEMORY_HOST, &opts, &A);
  }
  if (rc != DISTSPMV_SUCCESS) { /* the same code on every rank */
    fprintf(stderr, "rank %d: %s: %s\n", rank, distspmv_status_name(rc), distspmv_last_error());
  } else {
    int64_t m = 0; /* rows of this rank in the partitioned layout, where apply works */
    distspmv_local_rows(A, &m);
    double* x = malloc((size_t)(m + 1) * sizeof *x);
    double* y = malloc((size_t)(m + 1) * sizeof *y);
    for (int64_t i = 0; i < m; ++i) x[i] = cos(1.3 * (double)(i + 7 * rank)); /* any generic start */
    double lambda = 0, previous = -1;
    int it = 0;
    for (; it < 100000 && rc == DISTSPMV_SUCCESS && fabs(lambda - previous) > 1e-15 * lambda; ++it) {
      previous = lambda;
      rc = distspmv_apply(A, 1.0, x, 0.0, y, NULL); /* y = A x */
      double s[2] = {0, 0};                          /* x.y and y.y */
      for (int64_t i = 0; i < m; ++i) {
        s[0] += x[i] * y[i];
        s[1] += y[i] * y[i];
      }
      MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      lambda = s[0]; /* Rayleigh quotient, ||x|| = 1 after the first step */
      for (int64_t i = 0; i < m; ++i) x[i] = y[i] / sqrt(s[1]);
    }
    const double exact = 2.0 - 2.0 * cos(acos(-1.0) * (double)n / (double)(n + 1));
    if (rank == 0) printf("largest eigenvalue %.12f after %d products, exact %.12f\n", lambda, it, exact);
    status = (rc == DISTSPMV_SUCCESS && fabs(lambda - exact) < 1e-6) ? 0 : 1;
    free(x);
    free(y);
  }
  distspmv_destroy(&A); /* collective; before MPI_Finalize */
  free(row_ptr);
  free(cols);
  free(vals);
  MPI_Finalize();
  return status;
}
