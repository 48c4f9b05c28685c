#!/bin/bash
# SIGINT and SIGTERM to `nunatak run --collector preload` reach the application under the preload sampler; the Run is complete and marked interrupted
set -eu
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# As tests/e2e/lib_sampling.sh: an ASan-built libscope_profiler.so cannot be
	# preloaded into a plain program; the gcc pass runs this test.
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/interrupts_lib.sh"
interrupt_case preload
echo "ok: SIGINT/SIGTERM forwarded under the preload sampler"
