#!/bin/bash
# An OpenMP program (clang -fopenmp, libomp) with an OMPT tool of its own, run under nunatak: its tool is the one libomp starts, nunatak's OMPT tool is not even mapped into it, its output and exit status pass through, and the Run holds no OMPT profile (the regions, if any, come from the frames)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 2; }
[ -e "$(dirname "$NUNATAK")/lib/libnunatak_ompt.so" ] ||
	{ echo "skip: nunatak was built without its OMPT tool (apt-get install libomp-dev, reconfigure)"; exit 2; }
clang -O1 -g -fopenmp -o "$WORK/own" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/omp_own_tool.c" 2> "$WORK/cc.txt" ||
	{ echo "skip: clang -fopenmp cannot build here (apt-get install libomp-dev)"; exit 2; }
cd "$WORK"
"$WORK/own" > bare.txt </dev/null || fail "the program alone"
grep -qx "own tool initialised 1, threads 2, nunatak tool loaded 0" bare.txt || fail "the program alone: $(cat bare.txt)"
"$NUNATAK" run -o "$WORK/run" -- ./own > out.txt 2> err.txt </dev/null || fail "nunatak run"
cmp -s bare.txt out.txt || fail "the program's output changed under nunatak: $(cat out.txt)"
[ -d "$WORK/run/collect/ompt" ] || fail "nunatak did not offer its OMPT tool (collect/ompt missing)"
[ -z "$(ls -A "$WORK/run/collect/ompt")" ] || fail "an OMPT profile was written: $(ls "$WORK/run/collect/ompt")"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 - <<'PY' || fail "openmp payload"
import json
o = json.load(open("rep.json"))["openmp"]
assert o is None or all(r["measured_by"] == "frames" for r in o["regions"]), o
PY
