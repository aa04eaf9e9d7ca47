/* The C side of the Fortran module (distspmv.f90): the three calls of distspmv.h that take or give
 * an MPI_Comm, with the communicator as a Fortran handle (MPI_Fint: the integer of `use mpi`, or
 * comm%MPI_VAL of `use mpi_f08`). A C MPI_Comm has no portable Fortran type (a pointer in Open MPI,
 * an int in MPICH) and MPI_Comm_f2c may be a macro, so the conversion happens here, in C. */
#include <mpi.h>

#include "dist/capi/distspmv.h"

int distspmv_fortran_create_csr(MPI_Fint comm, int64_t global_rows, int64_t first_row, int64_t rows,
                                const int64_t* row_ptr, const int64_t* col_ids, const double* values,
                                distspmv_memory_space space, const distspmv_options* opts,
                                distspmv_matrix* out) {
  return distspmv_create_csr(MPI_Comm_f2c(comm), global_rows, first_row, rows, row_ptr, col_ids, values, space,
                             opts, out);
}

int distspmv_fortran_create_source(MPI_Fint comm, const char* source, const distspmv_options* opts,
                                   distspmv_matrix* out) {
  return distspmv_create_source(MPI_Comm_f2c(comm), source, opts, out);
}

int distspmv_fortran_comm(distspmv_matrix matrix, MPI_Fint* out) {
  MPI_Comm comm = MPI_COMM_NULL;
  const int status = distspmv_comm(matrix, out ? &comm : NULL); /* NULL out: the C API's message */
  if (status == DISTSPMV_SUCCESS) *out = MPI_Comm_c2f(comm);
  return status;
}
