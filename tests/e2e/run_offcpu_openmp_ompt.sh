#!/bin/bash
# OpenMP under LLVM's libomp measured by nunatak's OMPT tool (clang -fopenmp, no rebuild), 2 threads, thread 0 doing 3x the work: the region is named by its fork's call site (main, the #pragma's line), each OpenMP thread's work and barrier wait within 10% (+100 ms) of what the threads timed themselves, root or not, thread 0 hardly waiting; the summary says OMPT
CC_OMP=clang CC_OMP_REMEDY="apt-get install libomp-dev" OMP_RUNTIME=libomp OMP_OUTLINED=main OMP_MODE=ompt
. "$NUNATAK_SOURCE_DIR/tests/e2e/offcpu_openmp.bash"
