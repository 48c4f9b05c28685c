#!/bin/bash
# A polling MPI program under nunatak with MPICH (C, mpicc.mpich, mpirun.mpich, 2 ranks): the MPI_Test count exact at its line, its time estimated, samples in the PMPI probe shown as MPI_Test, nothing naming libnunatak-mpi*, the preload sampler or their internals (Hotspot, frame, stack, flame node, inline frame, MPI site), the probe's cost stated when above 1%, --mpi-skip
launcher=mpirun.mpich
compiler=mpicc.mpich
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.c"
polls=20000000
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.bash"
