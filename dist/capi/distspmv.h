/* distspmv C API (DESIGN.md §9): the distributed matrix of dist/distributed_matrix.hpp behind an
 * opaque handle, for C, Fortran (bind(C)) and solver libraries such as PETSc.
 *
 * Double precision. Every function returns an int status (DISTSPMV_SUCCESS = 0 or one of the
 * DISTSPMV_ERROR_* codes) and never lets a C++ exception escape; on failure
 * distspmv_last_error() gives a sentence naming the function and the problem (thread-local, kept
 * until the next failure of this thread).
 *
 * Collective calls (create, apply, to/from_partitioned, update_values, destroy) must be made by
 * every rank of the matrix's communicator, as with MPI. A problem found in the arguments of a
 * create call (a NULL array, an unknown enum value) is agreed between the ranks first, so every
 * rank returns the same code (a CUDA backend, device memory, METIS or PT-Scotch asked of a build
 * without them is DISTSPMV_ERROR_NOT_COMPILED, found there too); bad matrix contents (a column id out of
 * range, unsorted columns) likewise give DISTSPMV_ERROR_BAD_INPUT on every rank. The other collective calls check their
 * arguments locally and return before communicating: pass the same kind of arguments on every
 * rank, or the ranks that passed good ones wait for the others.
 *
 * Two row layouts exist (see distributed_matrix.hpp): the caller's (the rows each rank passed
 * in) and the partitioned one (after METIS, PT-Scotch or the block partitioner). distspmv_apply works in the
 * partitioned layout; distspmv_to_partitioned / distspmv_from_partitioned move vectors.
 *
 *   distspmv_options opts;
 *   distspmv_options_default(&opts);
 *   opts.backend = DISTSPMV_BACKEND_HOST;
 *   distspmv_matrix A = NULL;
 *   if (distspmv_create_csr(MPI_COMM_WORLD, n, first, rows, row_ptr, cols, vals,
 *                           DISTSPMV_MEMORY_HOST, &opts, &A) != DISTSPMV_SUCCESS)
 *     fprintf(stderr, "%s\n", distspmv_last_error());
 *   distspmv_apply(A, 1.0, x, 0.0, y, NULL);
 *   distspmv_destroy(&A);
 *
 * Handles are never reused: a handle that was destroyed is reported as
 * DISTSPMV_ERROR_INVALID_ARGUMENT, never dereferenced. Destroy every handle before
 * MPI_Finalize. Functions on one handle must not run concurrently from several threads.
 */
#ifndef DISTSPMV_C_API_H
#define DISTSPMV_C_API_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DISTSPMV_C_API_VERSION 1

/* ---- status codes ---------------------------------------------------------------------------- */
enum {
  DISTSPMV_SUCCESS = 0,
  DISTSPMV_ERROR_INVALID_ARGUMENT = 1, /* NULL pointer, destroyed handle, bad enum or size      */
  DISTSPMV_ERROR_BAD_INPUT = 2,        /* matrix file, generator spec or CSR contents are wrong  */
  DISTSPMV_ERROR_MPI = 3,              /* an MPI call failed                                     */
  DISTSPMV_ERROR_CUDA = 4,             /* a CUDA, cuSPARSE or NCCL call failed                   */
  DISTSPMV_ERROR_NOT_COMPILED = 5,     /* the build lacks what was asked for (CUDA, METIS, PT-Scotch) */
  DISTSPMV_ERROR_INTERNAL = 6          /* out of memory or an unexpected failure                 */
};

/* ---- options ------------------------------------------------------------------------------- */
typedef enum distspmv_memory_space {
  DISTSPMV_MEMORY_HOST = 0,
  DISTSPMV_MEMORY_DEVICE = 1
} distspmv_memory_space;

typedef enum distspmv_partitioner {
  DISTSPMV_PARTITION_METIS = 0,   /* METIS k-way on the symmetrised pattern, on one rank: rows are renumbered */
  DISTSPMV_PARTITION_BLOCK = 1,   /* contiguous blocks: the rows each rank passed stay there        */
  DISTSPMV_PARTITION_AUTO = 2,    /* block where its halo is small next to the local product, else METIS,
                                     label propagation on large skewed graphs, or PT-Scotch past
                                     METIS's size (the default) */
  DISTSPMV_PARTITION_PTSCOTCH = 3, /* PT-Scotch k-way on the distributed pattern, over all ranks: for
                                     graphs no rank can hold; rows are renumbered */
  DISTSPMV_PARTITION_LP = 4        /* label propagation from the block partition, over all ranks: a fast
                                     refinement for large graphs; rows are renumbered */
} distspmv_partitioner;

typedef enum distspmv_backend {
  DISTSPMV_BACKEND_CUDA = 0, /* one GPU per rank */
  DISTSPMV_BACKEND_HOST = 1  /* host kernels (tests, machines without a GPU) */
} distspmv_backend;

typedef enum distspmv_transport {
  DISTSPMV_TRANSPORT_AUTO = 0, /* one GPU per rank: peer-put on one host, NCCL across hosts; else MPI */
  DISTSPMV_TRANSPORT_NCCL = 1,
  DISTSPMV_TRANSPORT_MPI_CUDA = 2,
  DISTSPMV_TRANSPORT_MPI_STAGED = 3,
  DISTSPMV_TRANSPORT_MPI_HOST = 4,
  DISTSPMV_TRANSPORT_CUDA_IPC = 5,
  DISTSPMV_TRANSPORT_PEER_PUT = 6 /* the GPUs of one host store the halo into each other's memory */
} distspmv_transport;

typedef enum distspmv_order {
  DISTSPMV_ORDER_NONE = 0,   /* each rank's rows in the partition's order                           */
  DISTSPMV_ORDER_DEGREE = 1, /* rows by descending length inside each rank (hubs first)             */
  DISTSPMV_ORDER_RCM = 2,    /* reverse Cuthill-McKee on each rank's local block                     */
  DISTSPMV_ORDER_AUTO = 3    /* the default: none where the numbering is already local (banded,
                                stencil, clustered: few x sectors per tile of entries), else RCM */
} distspmv_order;

typedef struct distspmv_options {
  const char* format;             /* local storage format ("csr", "ellr", ...) or "auto"; NULL = "auto" */
  distspmv_partitioner partitioner;
  distspmv_backend backend;
  distspmv_transport transport;
  int metis_seed;                 /* seed of METIS and PT-Scotch */
  const char* h5_group;           /* create_source: HDF5 group; NULL or "" finds it */
  uint64_t generator_seed;        /* create_source: seed of the random generators */
  int allow_nonfinite;            /* nonzero: accept NaN and Inf values */
  distspmv_order order;           /* locality order of the rows inside each rank, folded into the
                                     partitioned numbering (the caller's layout is unchanged) */
  int float_values;               /* nonzero: mixed precision, the local format stores its values
                                     in float where it can (CSR family, HDIA); x, y and the sums
                                     stay double; a value beyond float's range is bad input */
  int cuda_graphs;                /* nonzero (the default): an apply repeating the previous one's
                                     x, y, alpha and beta runs as one captured CUDA graph (one rank
                                     or NCCL; every rank must then pass its vectors in the same
                                     roles, as SPMD code does); 0: always launched kernel by kernel */
} distspmv_options;

/* The defaults of the C++ API: format "auto", METIS, CUDA backend, automatic transport, seeds 1,
 * order auto, double values, CUDA graphs on.
 * Does nothing when opts is NULL. */
void distspmv_options_default(distspmv_options* opts);

/* ---- errors and build facts ---------------------------------------------------------------- */

/* Text of the last failure of the calling thread ("" when none). Valid until the next call that
 * fails on this thread. */
const char* distspmv_last_error(void);

/* "DISTSPMV_SUCCESS", "DISTSPMV_ERROR_BAD_INPUT", ...; "unknown status" for other values. */
const char* distspmv_status_name(int status);

/* 1 when this build contains the CUDA backend, else 0. */
int distspmv_has_cuda(void);

/* ---- the matrix ---------------------------------------------------------------------------- */
typedef struct distspmv_matrix_s* distspmv_matrix;

/* Collective. Each rank passes `rows` consecutive rows of the caller's layout starting at global
 * row `first_row` (the ranges of the ranks in rank order cover [0, global_rows)), as CSR with
 * int64 offsets (rows + 1 entries, starting at 0) and int64 global column ids, sorted and unique
 * within a row. Arrays are host or device memory (`space`); the library copies what it needs.
 * opts NULL means distspmv_options_default. On success *out is the new handle; on failure it is
 * set to NULL. Host arrays: row_ptr may be NULL when rows == 0, col_ids and values when the rank
 * has no entries. Device arrays must not be NULL. */
int distspmv_create_csr(MPI_Comm comm, int64_t global_rows, int64_t first_row, int64_t rows,
                        const int64_t* row_ptr, const int64_t* col_ids, const double* values,
                        distspmv_memory_space space, const distspmv_options* opts,
                        distspmv_matrix* out);

/* Collective: reads a file (.mtx, .mtx.gz, .h5) or generates "gen:KIND:ARGS" (DESIGN.md §8);
 * each rank keeps an nnz-balanced slice of rows as its caller layout. */
int distspmv_create_source(MPI_Comm comm, const char* source, const distspmv_options* opts,
                           distspmv_matrix* out);

/* Collective (frees the matrix's communicator). NULL or *matrix NULL: nothing to do, success.
 * Sets *matrix to NULL. */
int distspmv_destroy(distspmv_matrix* matrix);

/* Collective: y = alpha * A * x + beta * y in the partitioned layout (local_rows entries each).
 * x and y are host or device pointers; `stream` is a cudaStream_t (NULL: the default stream) and
 * is ignored on the host backend. beta == 0 overwrites y. */
int distspmv_apply(distspmv_matrix matrix, double alpha, const double* x, double beta, double* y,
                   void* stream);

/* Collective vector moves, host pointers: caller layout (caller_rows entries) <-> partitioned
 * layout (local_rows entries). */
int distspmv_to_partitioned(distspmv_matrix matrix, const double* caller, double* partitioned);
int distspmv_from_partitioned(distspmv_matrix matrix, const double* partitioned, double* caller);

/* Collective: new values for the pattern given at creation, in the caller's layout and entry
 * order (caller_nnz entries). */
int distspmv_update_values(distspmv_matrix matrix, const double* values, distspmv_memory_space space);

/* ---- queries (local, no communication) ----------------------------------------------------- */
int distspmv_global_rows(distspmv_matrix matrix, int64_t* out);
int distspmv_global_nnz(distspmv_matrix matrix, int64_t* out);
int distspmv_local_rows(distspmv_matrix matrix, int64_t* out);        /* partitioned layout */
int distspmv_first_row(distspmv_matrix matrix, int64_t* out);         /* partitioned numbering */
int distspmv_caller_rows(distspmv_matrix matrix, int64_t* out);
int distspmv_caller_first_row(distspmv_matrix matrix, int64_t* out);
int distspmv_caller_nnz(distspmv_matrix matrix, int64_t* out);
int distspmv_comm(distspmv_matrix matrix, MPI_Comm* out);             /* owned by the matrix */

/* The diagonal of the owned rows into diag[local_rows] (partitioned layout, host memory; 0 where
 * a row has no diagonal entry). */
int distspmv_diagonal(distspmv_matrix matrix, double* diag);

/* ids[i] = global row id in the caller's layout of owned row i (partitioned layout), local_rows
 * entries. The permutation that to_partitioned applies; PETSc users can pass it to an IS. */
int distspmv_owned_caller_ids(distspmv_matrix matrix, int64_t* ids);

typedef struct distspmv_halo_stats {
  /* this rank */
  int64_t rows;           /* owned rows */
  int64_t nnz;            /* nonzeros of the owned rows */
  int64_t interior_rows;  /* owned rows without ghost columns */
  int64_t boundary_rows;
  int64_t halo_nnz;       /* nonzeros in ghost columns */
  int64_t ghosts;         /* entries received per apply */
  int64_t sends;          /* entries sent per apply */
  int neighbours;         /* ranks this rank receives from or sends to */
  /* the whole partition (equal on every rank) */
  int64_t edge_cut;
  int64_t halo_entries_total;
  int64_t halo_entries_max;
  double nnz_imbalance;   /* max nnz / mean nnz */
} distspmv_halo_stats;

int distspmv_halo_stats_get(distspmv_matrix matrix, distspmv_halo_stats* out);

/* Names owned by the library: the transport in use ("nccl", "mpi-cuda", "mpi-staged",
 * "mpi-host"; static text) and the local storage format in use (valid until the next
 * distspmv_update_values or distspmv_destroy of the handle). */
int distspmv_transport_name(distspmv_matrix matrix, const char** name);
int distspmv_format_name(distspmv_matrix matrix, const char** name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DISTSPMV_C_API_H */
