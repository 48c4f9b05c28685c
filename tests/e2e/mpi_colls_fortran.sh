#!/bin/bash
# Collectives in who talks to whom (issue 22 item 7) from Fortran (use mpi) under Open MPI, whose Fortran bindings call PMPI_* past the C wrappers, 4 ranks: the twin of mpi_colls.c (MPI_Bcast, MPI_Allreduce, MPI_Alltoall, MPI_Scan, MPI_Barrier on MPI_COMM_WORLD, MPI_Bcast and MPI_Reduce on a reversed split freed before MPI_Finalize) gives the same collective cells, groups and patterns, estimated
launcher=mpirun
mpicc=mpifort
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.f90"
stack="Open MPI, Fortran"
ranks=4
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.bash"
