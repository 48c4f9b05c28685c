#!/bin/bash
# Where perf is blocked (tools.perf nowhere) the preload sampler samples, and the overhead line states its cost per sample as the calibration measured it on this Machine (preload_sample, with its Quality), never a made-up figure
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# As tests/e2e/run_preload.sh: an ASan-built libscope_profiler.so cannot be
	# preloaded into (or dlopen'ed by) a plain program; the gcc pass runs this.
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
build_two_hot
unset NUNATAK_NO_CALIBRATE
# Never the user's cache: a fresh one, removed by the trap.
export XDG_CACHE_HOME="$WORK/cache"
cd "$WORK"
# perf blocked; a generous budget (a shared 2-core machine under a full
# suite can take minutes; a cut is still checked for honesty below)
printf '[tools]\nperf = "%s/nowhere/perf"\n[calibration]\nbudget = 300\n' "$WORK" > nunatak.toml
"$NUNATAK" calibrate --json > cal.json 2> cal.txt || fail "calibrate exited $?"
# ~1 s of CPU: a few hundred samples at the kernel tick, whatever the load
"$NUNATAK" run --json -o "$WORK/run" -- ./two_hot 1000000000 > run.json 2> run.txt || fail "run exited $?"
python3 - <<'PY' || fail "assertions"
import json
cal, run = json.load(open("cal.json")), json.load(open("run.json"))
assert run["collector"] == "preload", run.get("collector")
costs = {x["name"]: x for x in cal["machine"].get("costs", [])}
c = costs.get("preload_sample")
if cal["calibration"]["budget_cut"] and c is None:
    raise SystemExit("the budget cut the calibration before the costs, and no cost says so")
assert c is not None, ("the calibration did not measure the preload sampler's cost", costs)
m = json.load(open(run["run"] + "/manifest.json"))
o = m.get("overhead")
assert o, ("no overhead in the manifest of a sampled Run", m.get("counts"))
assert o["collector"] == "preload" and o["samples"] > 0, o
line = [l for l in open("run.txt") if "overhead:" in l]
assert line, "no overhead line"
print("preload_sample:", c, "\noverhead:", o, "\n", line[0].strip())
if c["quality"] == "unavailable":
    # never a figure without a measured cost; the reason carries the calibration's
    assert c["value"] is None and c["reason"], c
    assert o["value"] is None and o["quality"] == "unavailable", o
    assert c["reason"] in o["reason"], (o, c)
    assert "overhead: unmeasured" in line[0], line
else:
    # a signal and its handler: microseconds, never zero, never a millisecond
    assert 1e-8 < c["value"] < 1e-3 and (c["quality"] == "measured") == (c["reason"] is None), c
    assert o["cost_per_sample_s"] == c["value"] and o["cost_quality"] == c["quality"], (o, c)
    assert o["quality"] == "estimated" and abs(o["value"] - o["samples"] * c["value"]) < 1e-9, o
    assert "of the preload sampler" in o["reason"] and "measured on this Machine" in o["reason"], o
    assert "of preload sampling" in line[0] and ("x %.3g us" % (c["value"] * 1e6)) in line[0], line
PY
echo "ok: the preload sampler's cost per sample, measured by the calibration, in the overhead line"
