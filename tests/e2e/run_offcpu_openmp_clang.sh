#!/bin/bash
# OpenMP under LLVM's libomp without nunatak's OMPT tool (clang -fopenmp; the user's own OMP_TOOL_LIBRARIES is set, which nunatak keeps and announces), 2 threads, thread 0 doing 3x the work: the payload's openmp names the region (clang's outlined .omp_outlined.) with its #pragma line, read from the frames; as root thread 1's wait (libomp spinning in sched_yield, sleeping in a futex: frames libc shows for it) is within 30% of what the threads timed themselves and thread 0 hardly waits; the summary names the thread, its share and the region
CC_OMP=clang CC_OMP_REMEDY="apt-get install libomp-dev" OMP_RUNTIME=libomp OMP_OUTLINED=.omp_outlined.
. "$NUNATAK_SOURCE_DIR/tests/e2e/offcpu_openmp.bash"
