#!/bin/bash
# Collectives in who talks to whom (issue 22 item 7) under Open MPI, 4 ranks: MPI_Bcast, MPI_Allreduce, MPI_Alltoall, MPI_Scan, MPI_Barrier on MPI_COMM_WORLD and MPI_Bcast, MPI_Reduce on a reversed parity split freed before MPI_Finalize; the payload's collective cells (which pairs, bytes and calls by pattern), its groups by communicator members and root, quality estimated with the reason, apart from the (empty) point-to-point matrix; the summary's line; the pivot's rows
launcher=mpirun
mpicc=mpicc
stack="Open MPI"
ranks=4
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.bash"
