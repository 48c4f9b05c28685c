#!/bin/bash
# A Fortran polling program (use mpi) under nunatak with Open MPI, whose Fortran bindings call PMPI_* past the C wrappers: MPI_Test, MPI_Iprobe and MPI_Testany counted exactly at their .f90 lines on the probe's cheap path (time estimated), nothing naming the probe or the sampler, the probe's cost stated when above 1%, --mpi-skip MPI_Test honoured by the Fortran binding
launcher=mpirun
compiler=mpifort
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.f90"
polls=5000000
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.bash"
