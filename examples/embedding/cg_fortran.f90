! Embedding distspmv in Fortran: Jacobi-preconditioned CG on the 1-D Laplacian through the Fortran
! module over the C API (dist/capi/distspmv.f90). Each rank hands in its rows; the vectors cross
! into the partitioned layout, where distspmv_apply works, and back. Run: mpiexec -n 4 ./embed_cg_fortran
program cg_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_ptr, c_null_ptr
  use mpi_f08
  use distspmv
  implicit none
  integer(c_int64_t), parameter :: n = 1000
  integer :: rank, size, it, status
  integer(c_int) :: rc, fcomm
  integer(c_int64_t) :: first, rows, m, i, j, k
  integer(c_int64_t), allocatable :: row_ptr(:), cols(:)
  real(c_double), allocatable :: vals(:), b(:), x(:), bp(:), xp(:), r(:), z(:), p(:), q(:), d(:)
  real(c_double) :: rz, rz_old, alpha, norm_b, err, exact
  character(len=:), allocatable :: format_name, transport_name
  type(distspmv_options) :: opts
  type(c_ptr) :: A = c_null_ptr
  type(MPI_Comm) :: comm

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  status = 1

  ! This rank's rows [first, first + rows) of tridiag(-1, 2, -1): CSR with 0-based int64 offsets
  ! and global column ids, sorted within each row.
  first = n * rank / size
  rows = n * (rank + 1) / size - first
  allocate (row_ptr(rows + 1), cols(3 * rows), vals(3 * rows))
  k = 0
  row_ptr(1) = 0
  do i = first, first + rows - 1
    do j = max(i - 1, 0_c_int64_t), min(i + 1, n - 1)
      k = k + 1
      cols(k) = j
      vals(k) = merge(2.0_c_double, -1.0_c_double, j == i)
    end do
    row_ptr(i - first + 2) = k
  end do

  call distspmv_options_default(opts)
  opts%backend = DISTSPMV_BACKEND_HOST ! DISTSPMV_BACKEND_CUDA (the default): one GPU per rank
  rc = distspmv_create_csr(MPI_COMM_WORLD%MPI_VAL, n, first, rows, row_ptr, cols, vals, &
                           DISTSPMV_MEMORY_HOST, opts, A)
  if (rc /= DISTSPMV_SUCCESS) then ! the same code on every rank
    write (*, '(a, i0, 4a)') "rank ", rank, ": ", distspmv_status_name(rc), ": ", distspmv_last_error()
  else
    rc = distspmv_local_rows(A, m) ! rows of this rank in the partitioned layout
    rc = distspmv_comm(A, fcomm)   ! the matrix's own communicator, for the dot products
    comm%MPI_VAL = fcomm
    allocate (b(rows), x(rows), bp(m), xp(m), r(m), z(m), p(m), q(m), d(m))
    b = 1
    rc = distspmv_to_partitioned(A, b, bp)
    rc = distspmv_diagonal(A, d)
    xp = 0
    r = bp
    z = r / d
    p = z
    rz = dot(r, z)
    norm_b = sqrt(dot(bp, bp))
    it = 0
    do while (rc == DISTSPMV_SUCCESS .and. sqrt(dot(r, r)) > 1e-10_c_double * norm_b .and. it < 10 * n)
      it = it + 1
      rc = distspmv_apply(A, 1.0_c_double, p, 0.0_c_double, q, c_null_ptr) ! q = A p
      alpha = rz / dot(p, q)
      xp = xp + alpha * p
      r = r - alpha * q
      z = r / d
      rz_old = rz
      rz = dot(r, z)
      p = z + (rz / rz_old) * p
    end do
    if (rc == DISTSPMV_SUCCESS) rc = distspmv_from_partitioned(A, xp, x)

    ! The exact solution of tridiag(-1, 2, -1) x = 1 is x_i = (i + 1)(n - i) / 2 (0-based i).
    err = 0
    do i = 1, rows
      exact = 0.5_c_double * real(first + i, c_double) * real(n - first - i + 1, c_double)
      err = max(err, abs(x(i) - exact) / exact)
    end do
    call MPI_Allreduce(MPI_IN_PLACE, err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, comm)
    if (rc == DISTSPMV_SUCCESS) rc = distspmv_format_name(A, format_name)
    if (rc == DISTSPMV_SUCCESS) rc = distspmv_transport_name(A, transport_name)
    if (rc /= DISTSPMV_SUCCESS) then
      write (*, '(a, i0, 2a)') "rank ", rank, ": ", distspmv_last_error()
    else if (rank == 0) then
      write (*, '(a, i0, 5a, es9.2)') "CG: ", it, " iterations (format ", format_name, ", transport ", &
        transport_name, "), max relative error ", err
    end if
    if (rc == DISTSPMV_SUCCESS .and. err < 1e-6_c_double) status = 0
  end if
  rc = distspmv_destroy(A) ! collective; before MPI_Finalize
  call MPI_Finalize()
  if (status /= 0) stop 1

contains

  ! The global dot product of two partitioned vectors.
  function dot(u, v) result(s)
    real(c_double), intent(in) :: u(:), v(:)
    real(c_double) :: s
    s = dot_product(u, v)
    call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
  end function dot

end program cg_fortran
