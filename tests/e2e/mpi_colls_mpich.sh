#!/bin/bash
# Collectives in who talks to whom (issue 22 item 7) under MPICH (mpirun.mpich), 3 ranks: MPI_Bcast, MPI_Allreduce, MPI_Alltoall, MPI_Scan, MPI_Barrier on MPI_COMM_WORLD and MPI_Bcast, MPI_Reduce on a reversed parity split (one half of a single rank) freed before MPI_Finalize; the payload's collective cells (which pairs, bytes and calls by pattern), its groups, quality estimated, apart from the point-to-point matrix
launcher=mpirun.mpich
mpicc=mpicc.mpich
stack=MPICH
ranks=3
flags=()
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.bash"
