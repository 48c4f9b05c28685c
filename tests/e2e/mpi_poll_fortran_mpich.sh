#!/bin/bash
# A Fortran polling program (use mpi) under nunatak with MPICH (mpifort.mpich, mpirun.mpich), whose Fortran bindings call the C MPI_*: MPI_Test, MPI_Iprobe and MPI_Testany counted once each, exactly, at their .f90 lines (not inside libmpichfort), time estimated, nothing naming the probe or the sampler, the probe's cost stated when above 1%, --mpi-skip MPI_Test honoured
launcher=mpirun.mpich
compiler=mpifort.mpich
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.f90"
polls=5000000
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.bash"
