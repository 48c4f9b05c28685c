! SPDX-License-Identifier: BSD-3-Clause
! Fortran twin of mpi_wait.c for tests/e2e/mpi_measured_fortran.sh: rank 0
! spins 3 units, the others 1, all meet in MPI_Barrier (timed and printed by
! the program), then rank 0 sends rank 1 exactly 1000 MPI_BYTEs.
program mpi_wait_f
  use mpi
  implicit none
  integer :: ierr, rank, nranks, unit_ms
  integer(8) :: t0, t1, rate
  character(len=1000) :: buf
  character(len=16) :: arg
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) unit_ms
  if (rank == 0) then
    call spin(3 * unit_ms)
  else
    call spin(unit_ms)
  end if
  call system_clock(t0, rate)
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! BARRIER_LINE
  call system_clock(t1)
  print '(A,I0,A,I0)', 'rank ', rank, ' barrier_ns ', (t1 - t0) * (1000000000_8 / rate)
  if (rank == 0 .and. nranks > 1) then
    call MPI_Send(buf, 1000, MPI_BYTE, 1, 1, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(buf, 1000, MPI_BYTE, 0, 1, MPI_COMM_WORLD, status, ierr)
  end if
  call MPI_Finalize(ierr)
contains
  subroutine spin(ms)
    integer, intent(in) :: ms
    integer(8) :: s0, s, r
    call system_clock(s0, r)
    do
      call system_clock(s)
      if ((s - s0) * 1000 / r >= ms) exit
    end do
  end subroutine spin
end program mpi_wait_f
