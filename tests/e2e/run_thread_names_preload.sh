#!/bin/bash
# where perf does not collect (the preload sampler stands in), the threads a program's region trace names (scope_profiler's lanes: each thread's comm at its exit) name their Loci in pivot.sqlite (without the trace, nothing would: the sampler records no thread)
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# an ASan-built libscope_profiler.so cannot be preloaded into a plain
	# program; the gcc pass runs this test
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
threads="$NUNATAK_BUILD_DIR/examples/c/example_threads"
[ -x "$threads" ] || fail "example_threads not built"
cd "$WORK"
"$NUNATAK" run --collector preload -o "$WORK/run" -- "$threads" 3 5 1 > out.txt 2> err.txt </dev/null ||
	fail "nunatak run --collector preload"
python3 - <<'PY' || fail "thread names in pivot.sqlite"
import sqlite3
db = sqlite3.connect("file:run/pivot.sqlite?mode=ro", uri=True)
rows = list(db.execute("SELECT thread, name FROM loci"))
print(rows)
named = sorted(n for t, n in rows if t is not None and n is not None)
assert named == ["example_threads", "worker-0", "worker-1", "worker-2"], rows
PY
