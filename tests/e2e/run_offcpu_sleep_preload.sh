#!/bin/bash
# where perf does not collect (the preload sampler stands in), a program that sleeps half its wall time still gets its time budget at the process level: wait4's CPU time (measured) and off-CPU time = wall - CPU (estimated, with its reason) within 15% of the program's own, said in the summary's first line, never attributed
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# an ASan-built libscope_profiler.so cannot be preloaded into a plain
	# program; the gcc pass runs this test
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -o "$WORK/sleeper" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/sleeper.c"
cd "$WORK"
"$NUNATAK" run --collector preload -o "$WORK/run" -- ./sleeper "$WORK/truth.txt" > out.txt 2> err.txt </dev/null ||
	fail "nunatak run --collector preload"
grep -q "time: wall .* s; on CPU .* s (.*% of wall time), off CPU .* s (.*% of wall time) - estimated, process level" err.txt ||
	fail "the summary's time line is missing or does not say its base and level"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
python3 - <<'PY' || fail "time budget"
import json
wall, cpu = map(float, open("truth.txt").read().split())
rep = json.load(open("rep.json"))
tb = rep["time_budget"]
assert tb["mechanism"] == "process rusage", tb["mechanism"]
assert tb["cpu_ns"]["quality"] == "measured", tb["cpu_ns"]
off = tb["offcpu_ns"]
assert off["quality"] == "estimated" and "process level" in off["reason"], off
truth = (wall - cpu) * 1e9
assert abs(off["value"] - truth) <= 0.15 * truth, ("offcpu_ns %.0f vs the program's own %.0f" % (off["value"], truth))
assert abs(tb["cpu_ns"]["value"] - cpu * 1e9) <= 0.15 * cpu * 1e9, (tb["cpu_ns"], cpu)
assert tb["preempted_ns"]["value"] is None and tb["preempted_ns"]["quality"] == "unavailable"
assert not any(h["attributed"] for h in rep["offcpu_hotspots"]), rep["offcpu_hotspots"]
PY
