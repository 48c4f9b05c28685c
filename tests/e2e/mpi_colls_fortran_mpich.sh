#!/bin/bash
# Collectives in who talks to whom (issue 22 item 7) from Fortran (use mpi) under MPICH, whose Fortran bindings call the C MPI_* (counted once, at the Fortran wrapper), 3 ranks: the twin of mpi_colls.c gives the same collective cells, groups and patterns, estimated
launcher=mpirun.mpich
mpicc=mpifort.mpich
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.f90"
stack="MPICH, Fortran"
ranks=3
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.bash"
