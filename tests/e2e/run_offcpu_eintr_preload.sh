#!/bin/bash
# blocking calls that a signal would interrupt (nanosleep, read on a pipe, poll), made while another thread burns CPU, return exactly as bare (never EINTR) under the preload sampler, whose CPU-time timers fire meanwhile
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# an ASan-built libscope_profiler.so cannot be preloaded into a plain
	# program; the gcc pass runs this test
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
. "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/eintr_lib.sh"
run_collector preload
grep -q "preload sampler: [1-9][0-9]* samples" "err-preload.txt" ||
	fail "the preload sampler took no sample: its timers never fired during the calls"
