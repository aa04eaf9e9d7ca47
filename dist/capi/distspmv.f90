! Fortran interface to the distspmv C API (distspmv.h, whose comments are the documentation):
! ISO_C_BINDING interfaces with the same names, arguments, status codes and structs. Where
! Fortran differs from C:
!   * a matrix handle is a type(c_ptr): c_null_ptr before create and after destroy;
!   * communicators are Fortran handles, the integer of `use mpi` or comm%MPI_VAL of
!     `use mpi_f08` (distspmv_fortran.c converts them; distspmv_comm gives one back);
!   * strings passed in are Fortran strings (distspmv_create_source); strings given back are
!     deferred-length character (distspmv_last_error, distspmv_status_name,
!     distspmv_transport_name, distspmv_format_name);
!   * distspmv_options%format and %h5_group stay C pointers: c_loc of a character variable with
!     the TARGET attribute that ends in c_null_char, alive until the create call returns;
!     c_null_ptr means "auto" and "find the group";
!   * arrays are assumed-size. Device arrays (DISTSPMV_MEMORY_DEVICE, the CUDA backend) are
!     passed by their device address, e.g. inside OpenACC's `host_data use_device`.
!
!   use distspmv
!   type(distspmv_options) :: opts
!   type(c_ptr) :: A = c_null_ptr
!   call distspmv_options_default(opts)
!   opts%backend = DISTSPMV_BACKEND_HOST
!   if (distspmv_create_csr(MPI_COMM_WORLD%MPI_VAL, n, first, rows, row_ptr, cols, vals, &
!                           DISTSPMV_MEMORY_HOST, opts, A) /= DISTSPMV_SUCCESS) &
!     print *, distspmv_last_error()
!   rc = distspmv_apply(A, 1d0, x, 0d0, y, c_null_ptr)
!   rc = distspmv_destroy(A)
module distspmv
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_char, c_ptr, c_null_ptr, &
                                         c_null_char, c_size_t, c_associated, c_f_pointer
  implicit none
  private :: c_int, c_int64_t, c_double, c_char, c_ptr, c_null_ptr, c_null_char, c_size_t, &
             c_associated, c_f_pointer
  private :: c_last_error, c_status_name, c_create_source, c_transport_name, c_format_name, &
             c_strlen, fortran_string

  integer(c_int), parameter :: DISTSPMV_C_API_VERSION = 1

  ! status codes
  integer(c_int), parameter :: DISTSPMV_SUCCESS = 0
  integer(c_int), parameter :: DISTSPMV_ERROR_INVALID_ARGUMENT = 1
  integer(c_int), parameter :: DISTSPMV_ERROR_BAD_INPUT = 2
  integer(c_int), parameter :: DISTSPMV_ERROR_MPI = 3
  integer(c_int), parameter :: DISTSPMV_ERROR_CUDA = 4
  integer(c_int), parameter :: DISTSPMV_ERROR_NOT_COMPILED = 5
  integer(c_int), parameter :: DISTSPMV_ERROR_INTERNAL = 6

  ! enum distspmv_memory_space, distspmv_partitioner, distspmv_backend, distspmv_transport, distspmv_order
  integer(c_int), parameter :: DISTSPMV_MEMORY_HOST = 0, DISTSPMV_MEMORY_DEVICE = 1
  integer(c_int), parameter :: DISTSPMV_PARTITION_METIS = 0, DISTSPMV_PARTITION_BLOCK = 1, &
                               DISTSPMV_PARTITION_AUTO = 2, DISTSPMV_PARTITION_PTSCOTCH = 3, &
                               DISTSPMV_PARTITION_LP = 4
  integer(c_int), parameter :: DISTSPMV_BACKEND_CUDA = 0, DISTSPMV_BACKEND_HOST = 1
  integer(c_int), parameter :: DISTSPMV_TRANSPORT_AUTO = 0, DISTSPMV_TRANSPORT_NCCL = 1, &
                               DISTSPMV_TRANSPORT_MPI_CUDA = 2, DISTSPMV_TRANSPORT_MPI_STAGED = 3, &
                               DISTSPMV_TRANSPORT_MPI_HOST = 4, DISTSPMV_TRANSPORT_CUDA_IPC = 5, &
                               DISTSPMV_TRANSPORT_PEER_PUT = 6
  integer(c_int), parameter :: DISTSPMV_ORDER_NONE = 0, DISTSPMV_ORDER_DEGREE = 1, DISTSPMV_ORDER_RCM = 2, &
                               DISTSPMV_ORDER_AUTO = 3

  type, bind(c) :: distspmv_options
    type(c_ptr) :: format                ! char*: NULL = "auto"
    integer(c_int) :: partitioner
    integer(c_int) :: backend
    integer(c_int) :: transport
    integer(c_int) :: metis_seed
    type(c_ptr) :: h5_group              ! char*: NULL finds it
    integer(c_int64_t) :: generator_seed ! uint64_t in C
    integer(c_int) :: allow_nonfinite
    integer(c_int) :: order              ! enum distspmv_order
    integer(c_int) :: float_values       ! nonzero: mixed precision (values stored in float)
    integer(c_int) :: cuda_graphs        ! nonzero (default): repeated applies as one CUDA graph
  end type distspmv_options

  type, bind(c) :: distspmv_halo_stats
    integer(c_int64_t) :: rows, nnz, interior_rows, boundary_rows, halo_nnz, ghosts, sends
    integer(c_int) :: neighbours
    integer(c_int64_t) :: edge_cut, halo_entries_total, halo_entries_max
    real(c_double) :: nnz_imbalance
  end type distspmv_halo_stats

  interface
    subroutine distspmv_options_default(opts) bind(c, name="distspmv_options_default")
      import :: distspmv_options
      type(distspmv_options), intent(out) :: opts
    end subroutine distspmv_options_default

    function c_last_error() result(text) bind(c, name="distspmv_last_error")
      import :: c_ptr
      type(c_ptr) :: text
    end function c_last_error

    function c_status_name(status) result(text) bind(c, name="distspmv_status_name")
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: text
    end function c_status_name

    function distspmv_has_cuda() result(has) bind(c, name="distspmv_has_cuda")
      import :: c_int
      integer(c_int) :: has
    end function distspmv_has_cuda

    function distspmv_create_csr(comm, global_rows, first_row, rows, row_ptr, col_ids, values, space, &
                                 opts, matrix) result(status) bind(c, name="distspmv_fortran_create_csr")
      import :: c_int, c_int64_t, c_double, c_ptr, distspmv_options
      integer(c_int), value :: comm
      integer(c_int64_t), value :: global_rows, first_row, rows
      integer(c_int64_t), intent(in) :: row_ptr(*), col_ids(*)
      real(c_double), intent(in) :: values(*)
      integer(c_int), value :: space
      type(distspmv_options), intent(in) :: opts
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: status
    end function distspmv_create_csr

    function c_create_source(comm, source, opts, matrix) result(status) &
        bind(c, name="distspmv_fortran_create_source")
      import :: c_int, c_char, c_ptr, distspmv_options
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: source(*)
      type(distspmv_options), intent(in) :: opts
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: status
    end function c_create_source

    function distspmv_destroy(matrix) result(status) bind(c, name="distspmv_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: matrix
      integer(c_int) :: status
    end function distspmv_destroy

    function distspmv_apply(matrix, alpha, x, beta, y, stream) result(status) bind(c, name="distspmv_apply")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: matrix
      real(c_double), value :: alpha, beta
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(inout) :: y(*)
      type(c_ptr), value :: stream ! cudaStream_t; c_null_ptr: the default stream
      integer(c_int) :: status
    end function distspmv_apply

    function distspmv_to_partitioned(matrix, caller, partitioned) result(status) &
        bind(c, name="distspmv_to_partitioned")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: matrix
      real(c_double), intent(in) :: caller(*)
      real(c_double), intent(out) :: partitioned(*)
      integer(c_int) :: status
    end function distspmv_to_partitioned

    function distspmv_from_partitioned(matrix, partitioned, caller) result(status) &
        bind(c, name="distspmv_from_partitioned")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: matrix
      real(c_double), intent(in) :: partitioned(*)
      real(c_double), intent(out) :: caller(*)
      integer(c_int) :: status
    end function distspmv_from_partitioned

    function distspmv_update_values(matrix, values, space) result(status) bind(c, name="distspmv_update_values")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: matrix
      real(c_double), intent(in) :: values(*)
      integer(c_int), value :: space
      integer(c_int) :: status
    end function distspmv_update_values

    ! queries (local, no communication)
    function distspmv_global_rows(matrix, out) result(status) bind(c, name="distspmv_global_rows")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_global_rows

    function distspmv_global_nnz(matrix, out) result(status) bind(c, name="distspmv_global_nnz")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_global_nnz

    function distspmv_local_rows(matrix, out) result(status) bind(c, name="distspmv_local_rows")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_local_rows

    function distspmv_first_row(matrix, out) result(status) bind(c, name="distspmv_first_row")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_first_row

    function distspmv_caller_rows(matrix, out) result(status) bind(c, name="distspmv_caller_rows")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_caller_rows

    function distspmv_caller_first_row(matrix, out) result(status) bind(c, name="distspmv_caller_first_row")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_caller_first_row

    function distspmv_caller_nnz(matrix, out) result(status) bind(c, name="distspmv_caller_nnz")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function distspmv_caller_nnz

    ! The matrix's communicator (owned by the matrix) as a Fortran handle.
    function distspmv_comm(matrix, comm) result(status) bind(c, name="distspmv_fortran_comm")
      import :: c_int, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int), intent(out) :: comm
      integer(c_int) :: status
    end function distspmv_comm

    function distspmv_diagonal(matrix, diag) result(status) bind(c, name="distspmv_diagonal")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: matrix
      real(c_double), intent(out) :: diag(*)
      integer(c_int) :: status
    end function distspmv_diagonal

    function distspmv_owned_caller_ids(matrix, ids) result(status) bind(c, name="distspmv_owned_caller_ids")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: matrix
      integer(c_int64_t), intent(out) :: ids(*)
      integer(c_int) :: status
    end function distspmv_owned_caller_ids

    function distspmv_halo_stats_get(matrix, stats) result(status) bind(c, name="distspmv_halo_stats_get")
      import :: c_int, c_ptr, distspmv_halo_stats
      type(c_ptr), value :: matrix
      type(distspmv_halo_stats), intent(out) :: stats
      integer(c_int) :: status
    end function distspmv_halo_stats_get

    function c_transport_name(matrix, name) result(status) bind(c, name="distspmv_transport_name")
      import :: c_int, c_ptr
      type(c_ptr), value :: matrix
      type(c_ptr), intent(out) :: name
      integer(c_int) :: status
    end function c_transport_name

    function c_format_name(matrix, name) result(status) bind(c, name="distspmv_format_name")
      import :: c_int, c_ptr
      type(c_ptr), value :: matrix
      type(c_ptr), intent(out) :: name
      integer(c_int) :: status
    end function c_format_name

    function c_strlen(text) result(length) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
      integer(c_size_t) :: length
    end function c_strlen
  end interface

contains

  !> Text of the last failure of the calling thread ("" when none).
  function distspmv_last_error() result(text)
    character(len=:), allocatable :: text
    text = fortran_string(c_last_error())
  end function distspmv_last_error

  !> "DISTSPMV_SUCCESS", "DISTSPMV_ERROR_BAD_INPUT", ...
  function distspmv_status_name(status) result(text)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    text = fortran_string(c_status_name(status))
  end function distspmv_status_name

  !> Collective: reads a file (.mtx, .mtx.gz, .h5, PETSc binary) or generates "gen:KIND:ARGS".
  function distspmv_create_source(comm, source, opts, matrix) result(status)
    integer(c_int), intent(in) :: comm
    character(len=*), intent(in) :: source
    type(distspmv_options), intent(in) :: opts
    type(c_ptr), intent(out) :: matrix
    integer(c_int) :: status
    status = c_create_source(comm, source // c_null_char, opts, matrix)
  end function distspmv_create_source

  !> The transport in use ("nccl", "mpi-staged", "mpi-host", ...); "" on failure.
  function distspmv_transport_name(matrix, name) result(status)
    type(c_ptr), intent(in) :: matrix
    character(len=:), allocatable, intent(out) :: name
    integer(c_int) :: status
    type(c_ptr) :: text
    text = c_null_ptr
    status = c_transport_name(matrix, text)
    name = fortran_string(text)
  end function distspmv_transport_name

  !> The local storage format in use ("csr", "hll", ...); "" on failure.
  function distspmv_format_name(matrix, name) result(status)
    type(c_ptr), intent(in) :: matrix
    character(len=:), allocatable, intent(out) :: name
    integer(c_int) :: status
    type(c_ptr) :: text
    text = c_null_ptr
    status = c_format_name(matrix, text)
    name = fortran_string(text)
  end function distspmv_format_name

  ! A copy of a NUL-terminated C string ("" for NULL).
  function fortran_string(text) result(copy)
    type(c_ptr), intent(in) :: text
    character(len=:), allocatable :: copy
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    if (.not. c_associated(text)) then
      copy = ""
      return
    end if
    length = int(c_strlen(text))
    call c_f_pointer(text, chars, [length])
    allocate (character(len=length) :: copy)
    do i = 1, length
      copy(i:i) = chars(i)
    end do
  end function fortran_string

end module distspmv
