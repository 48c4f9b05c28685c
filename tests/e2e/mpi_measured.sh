#!/bin/bash
# MPI time measured by interposition under Open MPI (2 ranks): barrier wait within 10% of the program's own timing, its file:line, exact Send/Recv bytes, network Ceilings, cached probes, a SIGKILLed rank reported; the report's ranks x MPI calls view in Chromium
launcher=mpirun
mpicc=mpicc
stack="Open MPI"
browser=1
flags=(--oversubscribe)
# one core per rank (overload allowed on a 1-core machine): 2b
bind=(--bind-to core:overload-allowed)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
. "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_measured.bash"
