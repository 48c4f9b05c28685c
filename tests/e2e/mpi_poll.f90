! SPDX-License-Identifier: BSD-3-Clause
! Fortran twin of mpi_poll.c for tests/e2e/mpi_poll_fortran*.sh (2 ranks,
! `use mpi`). Rank 1 polls through the Fortran bindings, counting its calls:
! phase 1, a posted receive with MPI_Test and, while it is pending,
! MPI_Iprobe for a message never sent (tag 7); phase 2, another with
! MPI_Testany. After `min` calls of each phase it tells rank 0 (a small
! send), which then sends the awaited message: rank 1 polls at least `min`
! times whatever the load. Phase 3: 1000 calls each of MPI_Testall,
! MPI_Testsome, MPI_Request_get_status and MPI_Improbe on a receive never
! matched (then cancelled). It prints the exact counts: "rank 1 tests N
! iprobes M testanys K testalls 1000 testsomes 1000 getstatuses 1000
! improbes 1000 data 42". gfortran's line table
! may put a call made through Open MPI's `use mpi` at a neighbouring line
! (its loop's `do`, the next statement): the test accepts the call's marked
! line or the line the binary's debug information gives the call.
! usage: mpi_poll_f [min=1000000]
program mpi_poll_f
  use mpi
  implicit none
  integer :: ierr, rank, nranks, ping, data, req, reqs(1), idx, outcount, indices(1), msg
  integer :: spare, i
  integer :: status(MPI_STATUS_SIZE)
  integer(8) :: min, tests, iprobes, testanys, others
  logical :: flag, pflag
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  min = 1000000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) min
  end if
  if (nranks /= 2) then
    if (rank == 0) print '(A)', 'mpi_poll_f: run me with 2 ranks'
    call MPI_Finalize(ierr)
    stop 2
  end if
  ping = 1
  data = 0
  if (rank == 0) then
    call MPI_Recv(ping, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, status, ierr)
    data = 41
    call MPI_Send(data, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
    call MPI_Recv(ping, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, status, ierr)
    data = 42
    call MPI_Send(data, 1, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, ierr)
  else
    tests = 0
    iprobes = 0
    testanys = 0
    flag = .false.
    call MPI_Irecv(data, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, req, ierr)
    do
      tests = tests + 1
      call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr) ! TEST_LINE
      if (flag) exit
      iprobes = iprobes + 1
      call MPI_Iprobe(0, 7, MPI_COMM_WORLD, pflag, status, ierr) ! IPROBE_LINE
      if (tests == min) call MPI_Send(ping, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
    end do
    flag = .false.
    call MPI_Irecv(data, 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, reqs(1), ierr)
    do
      testanys = testanys + 1
      call MPI_Testany(1, reqs, idx, flag, status, ierr) ! TESTANY_LINE
      if (flag) exit
      if (testanys == min) call MPI_Send(ping, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, ierr)
    end do
    others = 0
    call MPI_Irecv(spare, 1, MPI_INTEGER, 0, 99, MPI_COMM_WORLD, reqs(1), ierr)
    do i = 1, 1000
      others = others + 1
      call MPI_Testall(1, reqs, flag, MPI_STATUSES_IGNORE, ierr) ! TESTALL_LINE
      call MPI_Testsome(1, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr) ! TESTSOME_LINE
      call MPI_Request_get_status(reqs(1), pflag, status, ierr) ! GETSTATUS_LINE
      call MPI_Improbe(0, 98, MPI_COMM_WORLD, flag, msg, status, ierr) ! IMPROBE_LINE
      if (flag .or. pflag .or. outcount > 0) then
        print '(A)', 'mpi_poll_f: a receive never sent completed'
        stop 1
      end if
    end do
    call MPI_Cancel(reqs(1), ierr)
    call MPI_Wait(reqs(1), status, ierr)
    print '(A,I0,A,I0,A,I0,5(A,I0))', 'rank 1 tests ', tests, ' iprobes ', iprobes, &
      ' testanys ', testanys, ' testalls ', others, ' testsomes ', others, &
      ' getstatuses ', others, ' improbes ', others, ' data ', data
  end if
  call MPI_Finalize(ierr)
end program mpi_poll_f
