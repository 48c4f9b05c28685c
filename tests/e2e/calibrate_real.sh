#!/bin/bash
# nunatak calibrate for real here: Ceilings plausible against the test's own triad and FMA loop, cached iff measured, a real Run embeds them and says why placement is unavailable
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
# The Run half needs perf sampling: without it the whole case skips, visibly.
command -v perf >/dev/null && perf record -q -e task-clock -o "${TMPDIR:-/tmp}/nunatak-probe.$$.data" -- true >/dev/null 2>&1 ||
	{ echo "skip: perf cannot sample here (the Run half of this test needs it)"; exit 2; }
rm -f "${TMPDIR:-/tmp}/nunatak-probe.$$.data"
unset NUNATAK_NO_CALIBRATE
# Never the user's cache: a fresh one, removed by the trap.
export XDG_CACHE_HOME="$WORK/cache"
cd "$WORK"
"$NUNATAK" calibrate --help | grep -q -- "--force" || fail "calibrate --help"
"$NUNATAK" help calibrate | grep -q "Ceilings" || fail "help calibrate"

# A shared 2-core machine under a full test suite can take minutes: a budget
# this generous makes a cut unlikely (a cut is still checked for honesty).
printf '[calibration]\nbudget = 300\n' > nunatak.toml
"$NUNATAK" calibrate --json > cal1.json 2> cal1.txt || fail "calibrate exited $?"
# A second calibrate answers from the cache only when the first was stored.
if python3 -c 'import json,sys; sys.exit(0 if json.load(open("cal1.json"))["stored"] else 1)'; then
	"$NUNATAK" calibrate --json > cal2.json 2> cal2.txt || fail "second calibrate exited $?"
else
	cp cal1.json cal2.json
fi
THREADS=$(python3 -c 'import json; print(max(1, int(json.load(open("cal1.json"))["machine"]["allocated_cores"])))')
cc -O3 -march=native -ffp-contract=fast -pthread -o by_hand "$NUNATAK_SOURCE_DIR/tests/fixtures/calibrate/by_hand.c" ||
	fail "the test's own kernels did not build"
./by_hand triad "$THREADS" 1024 > triad.txt 2>/dev/null || fail "by_hand triad"
./by_hand fma "$THREADS" > fma.txt 2>/dev/null || fail "by_hand fma"

python3 - "$NUNATAK_SOURCE_DIR" <<'PY' || fail "assertions"
import json, os, sys
src = sys.argv[1]
c1, c2 = json.load(open("cal1.json")), json.load(open("cal2.json"))
try:
    import jsonschema
    schema = json.load(open(os.path.join(src, "docs/schemas/calibrate.json")))
    for d in (c1, c2):
        jsonschema.Draft202012Validator(schema).validate(d)
except ImportError:
    print("note: python3-jsonschema absent: output not validated against its schema")
assert c1["source"] == "calibrated", c1["source"]
cal = c1["calibration"]
assert cal["compiler"] and cal["isa"] in ("avx512", "avx2", "neon", "scalar"), cal
assert cal["page_fault_seconds"] is not None and cal["page_fault_seconds"] >= 0, cal
ceil = {c["name"]: c for c in c1["machine"]["ceilings"]}
if cal["budget_cut"]:
    # Honest under extreme load: the cut is said, what ran is kept, the
    # theory fills the FLOP Ceilings the kernels could not measure.
    assert cal["problem"].startswith("the calibration budget of 300 s ran out"), cal
    assert "dram_bandwidth" in ceil or cal["measured"] + cal["estimated"] == 0, ceil
else:
    assert cal["problem"] is None, cal["problem"]
    assert set(ceil) == {"dram_bandwidth", "flops_dp", "flops_sp"}, ceil
for c in ceil.values():
    assert c["value"] > 0 and (c["quality"] == "measured") == (c["reason"] is None), c
# Plausibility against the test's own STREAM-style triad and FMA loop, run
# just now on as many threads: generous bounds (a shared, noisy machine),
# never a timing assertion.
triad, fma = float(open("triad.txt").read()), float(open("fma.txt").read())
print("ceilings:", {k: "%.3e %s" % (c["value"], c["quality"]) for k, c in ceil.items()},
      "by hand: triad %.3e B/s, FMA %.3e flop/s" % (triad, fma))
# Bounds hold for measured values; an estimated one says why in its reason
# (checked above), and a busy machine slows the test's own loops too.
threads = max(1, int(c1["machine"]["allocated_cores"]))
if "dram_bandwidth" in ceil and ceil["dram_bandwidth"]["quality"] == "measured":
    bw = ceil["dram_bandwidth"]["value"]
    assert triad / 8 < bw < triad * 8, (bw, triad)
if not cal["budget_cut"]:
    dp, sp = ceil["flops_dp"], ceil["flops_sp"]
    for c in (dp, sp):
        # no core does a Tflop/s; a Ceiling is a maximum no simple loop beats 8x
        assert c["value"] / threads < 1e12, c
        if c["quality"] == "measured":
            assert fma / 8 < c["value"], (c, fma)
    if dp["quality"] == sp["quality"] == "measured":
        assert 1.2 * dp["value"] < sp["value"] < 3 * dp["value"], (sp, dp)
# Cached whenever a kernel answered, measured or estimated (a busy Machine
# is not recalibrated by every Run); a cached Machine answers from the cache
# without calibrating again.
answered = cal["measured"] + cal["estimated"] > 0
assert c1["stored"] == answered, (c1["stored"], answered, c1["not_stored"])
if answered:
    assert os.path.isfile(c1["profile"]) and c1["profile"].startswith(os.environ["XDG_CACHE_HOME"]), c1
    assert c2["source"] == "cached" and c2["calibration"] is None, c2
    assert c2["machine"]["ceilings"] == c1["machine"]["ceilings"]
else:
    assert c1["not_stored"].startswith("no kernel answered"), c1
# The cost of one sample (issue 27, issue 24 item 8): measured with the
# calibration, both stack modes, each with its Quality, cached with the
# Ceilings, with its frequency and time in the calibration's report.
costs = {x["name"]: x for x in c1["machine"].get("costs", [])}
if not cal["budget_cut"]:
    assert set(costs) == {"perf_sample_fp", "perf_sample_dwarf", "preload_sample"}, costs
    assert cal["cost_frequency"] > 0 and cal["cost_seconds"] > 0, cal
for x in costs.values():
    assert x["unit"] == "s" and x["quality"] in ("measured", "estimated", "unavailable"), x
    if x["quality"] == "unavailable":
        assert x["value"] is None and x["reason"], x
    else:
        # tens of microseconds on a VM; never zero, never a millisecond
        assert 1e-8 < x["value"] < 1e-3 and (x["quality"] == "measured") == (x["reason"] is None), x
if answered:
    assert json.load(open(c1["profile"]))["machine"].get("costs", []) == c1["machine"].get("costs", [])
    assert c2["machine"].get("costs", []) == c1["machine"].get("costs", [])
# On a loaded Machine the triad ran on the free cores only, and said so; the
# FMA kernels, timed on each thread's CPU time, ran on every allocated core.
assert cal["flops_threads"] == threads, cal
if cal.get("threads", 0) and cal["threads"] < threads and "dram_bandwidth" in ceil:
    c = ceil["dram_bandwidth"]
    assert c["quality"] == "estimated" and "allocated cores (the others were busy)" in c["reason"], c
PY
grep -q "calibrating Machine [0-9a-f]\{16\} (no cached profile)" cal1.txt || fail "no announcement"

# A real Run: the Machine's Ceilings embedded, placement unavailable for a
# precise reason (no FLOP counter here), no ceilings-unavailable degradation.
build_two_hot
"$NUNATAK" run --record "$WORK/entry" --json -- ./two_hot > run.json 2> run.txt ||
	fail "run exited $?"
# The recording keeps the Ceilings the Run used; a replay answers with them.
"$NUNATAK" calibrate --replay "$WORK/entry" --json > replayed.json 2>> run.txt ||
	fail "calibrate --replay of the recording exited $?"
python3 - <<'PY' || fail "run assertions"
import json, os, subprocess
j = json.load(open("run.json"))
m = json.load(open(os.path.join(j["run"], "manifest.json")))
names = {c["name"] for c in m["machine"]["ceilings"]}
assert {"flops_dp", "flops_sp"} <= names, names
deg = [d for d in j["degradations"] if d["name"] == "ceilings-unavailable"]
if "dram_bandwidth" in names:
    assert names == {"dram_bandwidth", "flops_dp", "flops_sp"} and not deg, (names, deg)
else: # only when the budget cut the triad, which the degradation says
    assert deg and "budget" in deg[0]["message"], deg
rep = json.loads(subprocess.run([os.environ["NUNATAK"], "report", "--json", j["run"]],
                                capture_output=True, text=True, check=True).stdout)
assert rep["machine"]["ceilings"] == m["machine"]["ceilings"]
h = rep["hotspots"][0]
assert h["attainable"]["value"] is None
assert h["attainable"]["reason"] == "no flops_dp raw counter in this Run", h["attainable"]
assert h["classification_reason"] == "no flops_dp raw counter in this Run", h
# The overhead line uses the cost the calibration cached, for this Run's
# stack mode (fp standing in, as an upper bound, for a Run without stacks).
o, costs = m["overhead"], {x["name"]: x for x in m["machine"].get("costs", [])}
name = "perf_sample_dwarf" if o["stacks"] == "dwarf" else "perf_sample_fp"
cost = costs.get(name)
if cost and cost["quality"] != "unavailable":
    assert o["cost_per_sample_s"] == cost["value"] and o["quality"] == "estimated", (o, cost)
    assert abs(o["value"] - o["samples"] * cost["value"]) < 1e-9, o
    assert "measured on this Machine by the calibration" in o["reason"], o
    exact = o["stacks"] in ("fp", "dwarf")
    assert o["cost_quality"] == (cost["quality"] if exact else "estimated"), (o, cost)
    line = [l for l in open("run.txt") if "overhead: about" in l]
    assert line and ("x %.3g us" % (cost["value"] * 1e6)) in line[0], line
else:
    assert o["quality"] == "unavailable" and o["value"] is None, o
meta = json.load(open("entry/meta.json"))
assert meta["machine"]["ceilings"] == m["machine"]["ceilings"], meta["machine"]
r = json.load(open("replayed.json"))
assert r["source"] == "recorded" and r["machine"]["ceilings"] == m["machine"]["ceilings"], r
PY
grep -Eq "no (roofline )?placement( for any Hotspot)?: no flops_dp raw counter in this Run" run.txt ||
	fail "the summary must say why"
echo ok
