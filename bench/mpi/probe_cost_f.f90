! SPDX-License-Identifier: BSD-3-Clause
! The polling family's cost per call through the Fortran bindings (`use mpi`),
! for bench/mpi/probe_cost.sh: MPI_Test and MPI_Testany on pending receives
! (MPI_Irecv of messages never sent), MPI_Iprobe finding nothing, as a
! Fortran code polls. R rounds of N calls of each; prints, per function, the
! ns per call of the fastest round and the median one. The script runs it
! bare and with nunatak's probe preloaded in alternating processes (under
! MPICH, whose Fortran layer calls the C MPI_*, a bare Fortran call cannot
! be made in a probed process). Asserts nothing.
! usage: probe_cost_f [N=20000] [R=51]
program probe_cost_f
  use mpi
  implicit none
  integer, parameter :: npending = 4, nfn = 3
  integer :: ierr, i, r, f, rounds, idx, pending(npending)
  integer(8) :: n, k, t0, t1, rate
  integer :: st(MPI_STATUS_SIZE)
  logical :: flag
  character(len=32) :: arg
  character(len=1) :: buf(npending)
  character(len=24), parameter :: names(nfn) = [character(len=24) :: &
    'MPI_Test (pending)', 'MPI_Testany (4 pending)', 'MPI_Iprobe (nothing)']
  real(8), allocatable :: t(:, :)
  n = 20000
  rounds = 51
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) rounds
  end if
  if (n < 1 .or. rounds < 1) then
    print '(A)', 'usage: probe_cost_f [calls per block >= 1] [rounds >= 1]'
    stop 2
  end if
  allocate (t(rounds, nfn))
  call MPI_Init(ierr)
  do i = 1, npending
    call MPI_Irecv(buf(i), 1, MPI_CHARACTER, 0, 1000 + i, MPI_COMM_SELF, pending(i), ierr)
  end do
  flag = .false.
  do r = 1, rounds
    do f = 1, nfn
      call system_clock(t0, rate)
      select case (f)
      case (1)
        do k = 1, n
          call MPI_Test(pending(1), flag, MPI_STATUS_IGNORE, ierr)
        end do
      case (2)
        do k = 1, n
          call MPI_Testany(npending, pending, idx, flag, MPI_STATUS_IGNORE, ierr)
        end do
      case default
        do k = 1, n
          call MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_SELF, flag, st, ierr)
        end do
      end select
      call system_clock(t1)
      t(r, f) = real(t1 - t0, 8) * (1.0d9 / real(rate, 8)) / real(n, 8)
      if (flag) then
        print '(A)', 'probe_cost_f: a pending receive completed'
        stop 1
      end if
    end do
  end do
  do f = 1, nfn
    call sort(t(:, f))
    print '(2X,A24,A,F7.1,A,F7.1)', names(f), ' ns/call: fastest ', t(1, f), &
      ' median ', t((rounds + 1) / 2, f)
  end do
  do i = 1, npending
    call MPI_Cancel(pending(i), ierr)
    call MPI_Wait(pending(i), MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Finalize(ierr)
contains
  subroutine sort(v)
    real(8), intent(inout) :: v(:)
    integer :: a, b
    real(8) :: x
    do a = 2, size(v)
      x = v(a)
      b = a - 1
      do while (b >= 1)
        if (v(b) <= x) exit
        v(b + 1) = v(b)
        b = b - 1
      end do
      v(b + 1) = x
    end do
  end subroutine sort
end program probe_cost_f
