! SPDX-License-Identifier: BSD-3-Clause
! A `use mpi_f08` program (tests/e2e/mpi_f08.bash): its bindings bypass the
! MPI_* entry points nunatak interposes on. Each rank prints one line, then
! every rank exits 3, so that a changed output or exit status is seen.
program f08
  use mpi_f08
  implicit none
  integer :: rank, size, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  print '(a,i0,a,i0,a,i0)', 'f08 rank ', rank, ' of ', size, ' sum ', total
  call MPI_Finalize()
  call exit(3)
end program f08
