#!/bin/bash
# Who talks to whom (issue 22 item 7): the rank x rank point-to-point matrix measured by interposition under MPICH (mpirun.mpich, 4 ranks): exact messages and bytes per pair across MPI_COMM_WORLD, a split, a duplicate and a reversed split made after freeing both (ranks translated to the world's), the waiting pair's time, the summary's line, the payload's heat-map cells
launcher=mpirun.mpich
mpicc=mpicc.mpich
stack=MPICH
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_talk.bash"
