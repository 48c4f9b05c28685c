#!/bin/bash
# A `use mpi_f08` Fortran program under Open MPI (mpirun.openmpi, mpifort.openmpi), 2 ranks: its f08 bindings bypass the profiling interface, so the Run announces before the launch that MPI time is unavailable for mpi_f08 (remedy `use mpi`, never static linking), injects nothing, and the program's output and exit status (3) are as bare
launcher=mpirun.openmpi
fc=mpifort.openmpi
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_f08.bash"
