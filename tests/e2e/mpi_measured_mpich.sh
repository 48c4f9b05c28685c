#!/bin/bash
# MPI time measured by interposition under MPICH (mpirun.mpich, mpicc.mpich found beside it): barrier wait within 10% of the program's own timing, its file:line, exact bytes, network Ceilings, a SIGKILLed rank reported
launcher=mpirun.mpich
mpicc=mpicc.mpich
stack=MPICH
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_measured.bash"
