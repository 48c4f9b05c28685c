#!/bin/bash
# blocking calls that a signal would interrupt (nanosleep, read on a pipe, poll), made while another thread burns CPU, return exactly as bare (never EINTR) under perf with context switches and (as root) a stack sampled at each switch
. "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/eintr_lib.sh"
need_perf
run_collector perf
grep -q "collecting with perf" "err-perf.txt" || fail "perf did not collect"
