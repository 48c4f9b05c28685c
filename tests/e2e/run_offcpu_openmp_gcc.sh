#!/bin/bash
# OpenMP under GCC's libgomp (no OMPT), 2 threads, thread 0 doing 3x the work: the payload's openmp names the region (outlined main._omp_fn.0) with its file:line; as root (the scheduler's stacks) thread 1's wait is within 30% of what the threads timed themselves (two thirds of thread 0's work when both got the same CPU share: then also checked against that) and thread 0 hardly waits; otherwise the wait is estimated with its reason; the summary says which thread waits how much of which region
CC_OMP=gcc CC_OMP_REMEDY="libgomp missing" OMP_RUNTIME=libgomp OMP_OUTLINED=main._omp_fn.0
. "$NUNATAK_SOURCE_DIR/tests/e2e/offcpu_openmp.bash"
