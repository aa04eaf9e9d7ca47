! The Fortran module (dist/capi/distspmv.f90) on the host backend, at any rank count: every
! binding is called once at least, and the struct layouts are checked through values the C side
! fills or reads (options defaults, halo statistics past the padding, the format chosen through
! opts%format). Exit status 0 only when every check passed on every rank.
program fortran_api_test
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_char, c_ptr, c_null_ptr, &
                                         c_null_char, c_loc, c_associated
  use mpi_f08
  use distspmv
  implicit none
  integer :: rank, size, failures, cmp
  integer(c_int) :: rc, fcomm
  integer(c_int64_t) :: n, nnz, rows, first, caller_rows, caller_first, caller_nnz, i, j, k
  integer(c_int64_t), allocatable :: row_ptr(:), cols(:), ids(:)
  real(c_double), allocatable :: vals(:), x(:), y(:)
  character(kind=c_char, len=5), target :: ellr = "ellr" // c_null_char
  character(len=:), allocatable :: name
  type(distspmv_options) :: opts
  type(distspmv_halo_stats) :: stats
  type(c_ptr) :: A = c_null_ptr
  type(MPI_Comm) :: comm

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  failures = 0

  ! distspmv_options_default fills every field (the C++ defaults).
  call distspmv_options_default(opts)
  call check(c_associated(opts%format), "opts%format is set")
  call check(opts%partitioner == DISTSPMV_PARTITION_AUTO .and. opts%backend == DISTSPMV_BACKEND_CUDA .and. &
             opts%transport == DISTSPMV_TRANSPORT_AUTO, "partitioner, backend, transport defaults")
  call check(opts%metis_seed == 1 .and. opts%generator_seed == 1 .and. opts%allow_nonfinite == 0, "seeds, nonfinite")
  call check(opts%order == DISTSPMV_ORDER_AUTO, "order default")
  call check(opts%float_values == 0, "float_values default")
  call check(opts%cuda_graphs == 1, "cuda_graphs default")
  call check(distspmv_has_cuda() == 0 .or. distspmv_has_cuda() == 1, "distspmv_has_cuda is 0 or 1")

  ! A generated matrix: 7-point Laplacian on 4^3 points (64 rows, 352 nonzeros), block partition.
  opts%backend = DISTSPMV_BACKEND_HOST
  opts%partitioner = DISTSPMV_PARTITION_BLOCK
  opts%format = c_loc(ellr)
  rc = distspmv_create_source(MPI_COMM_WORLD%MPI_VAL, "gen:poisson3d:4", opts, A)
  call ok(rc, "distspmv_create_source")
  call ok(distspmv_global_rows(A, n), "global_rows")
  call ok(distspmv_global_nnz(A, nnz), "global_nnz")
  call check(n == 64 .and. nnz == 352, "64 rows, 352 nonzeros")
  call ok(distspmv_local_rows(A, rows), "local_rows")
  call ok(distspmv_first_row(A, first), "first_row")
  call ok(distspmv_caller_rows(A, caller_rows), "caller_rows")
  call ok(distspmv_caller_first_row(A, caller_first), "caller_first_row")
  call ok(distspmv_caller_nnz(A, caller_nnz), "caller_nnz")
  call check(rows == caller_rows .and. first == caller_first, "the block partition keeps the caller's rows")
  call check(sum_all(rows) == 64 .and. sum_all(caller_nnz) == 352, "rows and nonzeros add up")
  allocate (ids(rows))
  call ok(distspmv_owned_caller_ids(A, ids), "owned_caller_ids")
  call check(all(ids == [(first + i, i = 0, rows - 1)]), "owned_caller_ids of the block partition")
  call ok(distspmv_format_name(A, name), "format_name")
  call check(name == "ellr", "the format asked through opts%format, got " // name)
  call ok(distspmv_transport_name(A, name), "transport_name")
  call check(name == "mpi-host", "transport mpi-host, got " // name)
  call ok(distspmv_halo_stats_get(A, stats), "halo_stats_get")
  call check(stats%rows == rows .and. sum_all(stats%nnz) == 352, "halo_stats rows, nnz")
  call check(stats%interior_rows + stats%boundary_rows == rows .and. stats%neighbours <= size - 1, &
             "halo_stats interior + boundary rows, neighbours")
  call check(stats%nnz_imbalance >= 1 .and. (size > 1 .or. stats%edge_cut == 0), "halo_stats edge_cut, imbalance")
  call ok(distspmv_comm(A, fcomm), "distspmv_comm")
  comm%MPI_VAL = fcomm
  call MPI_Comm_compare(comm, MPI_COMM_WORLD, cmp)
  call check(cmp == MPI_CONGRUENT, "distspmv_comm gives a duplicate of MPI_COMM_WORLD")
  call ok(distspmv_destroy(A), "destroy")
  call check(.not. c_associated(A), "destroy sets the handle to c_null_ptr")

  ! The 1-D Laplacian from CSR: A * ones is 1 in the first and last rows, 0 elsewhere; doubled by
  ! update_values; the diagonal is 2 (4 after the update), then back to the caller's layout.
  n = 100
  caller_first = n * rank / size
  caller_rows = n * (rank + 1) / size - caller_first
  allocate (row_ptr(caller_rows + 1), cols(3 * caller_rows), vals(3 * caller_rows))
  k = 0
  row_ptr(1) = 0
  do i = caller_first, caller_first + caller_rows - 1
    do j = max(i - 1, 0_c_int64_t), min(i + 1, n - 1)
      k = k + 1
      cols(k) = j
      vals(k) = merge(2.0_c_double, -1.0_c_double, j == i)
    end do
    row_ptr(i - caller_first + 2) = k
  end do
  call distspmv_options_default(opts)
  opts%backend = DISTSPMV_BACKEND_HOST
  call ok(distspmv_create_csr(MPI_COMM_WORLD%MPI_VAL, n, caller_first, caller_rows, row_ptr, cols, vals, &
                              DISTSPMV_MEMORY_HOST, opts, A), "create_csr")
  call ok(distspmv_local_rows(A, rows), "local_rows")
  allocate (x(rows), y(rows))
  x = 1
  y = 7
  call ok(distspmv_apply(A, 1.0_c_double, x, 0.0_c_double, y, c_null_ptr), "apply")
  call check(abs(sum_all_real(y) - 2) < 1e-12, "A * ones adds up to 2")
  call ok(distspmv_update_values(A, 2 * vals(1:k), DISTSPMV_MEMORY_HOST), "update_values")
  call ok(distspmv_apply(A, 0.5_c_double, x, 1.0_c_double, y, c_null_ptr), "apply, beta 1")
  call check(abs(sum_all_real(y) - 4) < 1e-12, "y + 0.5 * (2 A) * ones adds up to 4")
  call ok(distspmv_diagonal(A, y), "diagonal")
  call check(all(y == 4), "the diagonal after update_values is 4")
  deallocate (x)
  allocate (x(caller_rows))
  call ok(distspmv_from_partitioned(A, y, x), "from_partitioned")
  call ok(distspmv_to_partitioned(A, x, y), "to_partitioned")
  call check(all(x == 4) .and. all(y == 4), "the layout moves")
  call ok(distspmv_destroy(A), "destroy")

  ! Errors: the status, its name and the message.
  rc = distspmv_create_source(MPI_COMM_WORLD%MPI_VAL, "gen:nonsense:1", opts, A)
  call check(rc == DISTSPMV_ERROR_BAD_INPUT, "a bad generator is DISTSPMV_ERROR_BAD_INPUT")
  call check(distspmv_status_name(rc) == "DISTSPMV_ERROR_BAD_INPUT", "status_name")
  call check(len(distspmv_last_error()) > 0, "last_error says why")
  call check(.not. c_associated(A), "a failed create leaves c_null_ptr")
  rc = distspmv_local_rows(A, rows)
  call check(rc == DISTSPMV_ERROR_INVALID_ARGUMENT, "a null handle is DISTSPMV_ERROR_INVALID_ARGUMENT")
  call check(index(distspmv_last_error(), "distspmv_local_rows") > 0, "the message names the function")
  call ok(distspmv_destroy(A), "destroy of c_null_ptr")

  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) write (*, '(a, i0, a)') "fortran_api_test: ", failures, " failed checks"
  call MPI_Finalize()
  if (failures /= 0) stop 1

contains

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      write (*, '(a, i0, 2a)') "rank ", rank, ": check failed: ", what
    end if
  end subroutine check

  subroutine ok(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    call check(status == DISTSPMV_SUCCESS, what // ": " // distspmv_status_name(status) // ": " // &
               distspmv_last_error())
  end subroutine ok

  function sum_all(value) result(total)
    integer(c_int64_t), intent(in) :: value
    integer(c_int64_t) :: total
    call MPI_Allreduce(value, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  end function sum_all

  function sum_all_real(values) result(total)
    real(c_double), intent(in) :: values(:)
    real(c_double) :: total
    call MPI_Allreduce(sum(values), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end function sum_all_real

end program fortran_api_test
