#!/bin/bash
# A `use mpi_f08` Fortran program under MPICH (mpirun.mpich, mpifort.mpich; skipped when MPICH has no mpi_f08 module), 2 ranks: its mpi_init_f08_ calls PMPI_Init directly, so the Run announces before the launch that MPI time is unavailable for mpi_f08 (remedy `use mpi`, never static linking), injects nothing, and the program's output and exit status (3) are as bare
launcher=mpirun.mpich
fc=mpifort.mpich
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_f08.bash"
