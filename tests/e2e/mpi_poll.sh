#!/bin/bash
# A polling MPI program under nunatak (C, Open MPI, 2 ranks): the MPI_Test count exact at its line, its time stated as estimated (timed 1 in N), samples in the PMPI probe shown as MPI_Test, no Hotspot, frame, stack frame, flame node, inline frame or MPI site naming the probe library, the preload sampler or their internals, the probe's cost stated when above 1%, --mpi-skip
launcher=mpirun
compiler=mpicc
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.c"
polls=20000000
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_poll.bash"
