! SPDX-License-Identifier: BSD-3-Clause
! The Fortran twin of tests/e2e/mpi_colls.c (use mpi; Open MPI's Fortran
! bindings call PMPI_* past the C wrappers): the same collectives with the
! same bytes, so tests/e2e/mpi_colls.bash expects the same cells.
program colls
  use mpi
  implicit none
  integer :: rank, n, ierr, k, i, half, hr, hn, top
  integer :: ints(1000)
  double precision :: v(256), s(256), d(64), r(64)
  integer, allocatable :: sendb(:), recvb(:)
  integer(kind=8) :: one, pre
  character :: bytes(500)
  logical :: ok, all
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  ok = .true.
  do k = 0, 1
    do i = 1, 1000
      ints(i) = -1
      if (rank == 1) ints(i) = i - 1 + k
    end do
    call MPI_Bcast(ints, 1000, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    ok = ok .and. ints(1000) == 999 + k
  end do
  do k = 1, 3
    do i = 1, 256
      v(i) = rank + i - 1
    end do
    call MPI_Allreduce(v, s, 256, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    ok = ok .and. s(1) == n * (n - 1) / 2.0d0
  end do
  allocate(sendb(100 * n), recvb(100 * n))
  do i = 1, 100 * n
    sendb(i) = rank * 1000 + (i - 1) / 100
  end do
  call MPI_Alltoall(sendb, 100, MPI_INTEGER, recvb, 100, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ok = ok .and. recvb(100 * (n - 1) + 1) == (n - 1) * 1000 + rank
  one = 1
  call MPI_Scan(one, pre, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  ok = ok .and. pre == rank + 1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_rank(half, hr, ierr)
  call MPI_Comm_size(half, hn, ierr)
  do i = 1, 500
    bytes(i) = achar(0)
    if (hr == 0) bytes(i) = achar(rank + 1)
  end do
  call MPI_Bcast(bytes, 500, MPI_CHARACTER, 0, half, ierr)
  top = mod(rank, 2) + 2 * ((n - 1 - mod(rank, 2)) / 2)
  ok = ok .and. bytes(500) == achar(top + 1)
  d = 1
  call MPI_Reduce(d, r, 64, MPI_DOUBLE_PRECISION, MPI_SUM, hn - 1, half, ierr)
  if (hr == hn - 1) ok = ok .and. r(64) == hn
  call MPI_Comm_free(half, ierr)

  call MPI_Allreduce(ok, all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all) then
      print '(a)', 'colls ok'
    else
      print '(a)', 'colls WRONG'
    end if
  end if
  deallocate(sendb, recvb)
  call MPI_Finalize(ierr)
end program colls
