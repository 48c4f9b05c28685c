#!/bin/bash
# replay corpus workload-c-calibrated: first-Run calibration replayed (Ceilings = recorded maxima), one line-level Hotspot main
CALIBRATE=1
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-calibrated
grep -q "  main (line, workload.c:[0-9]*) - 99" "$ERR" || fail "main must hold ~99% at line level"
grep -q "calibrating Machine [0-9a-f]\{16\} (first Run on it)" "$ERR" || fail "the calibration must be announced"
grep -q "calibration: dram_bandwidth 9.926e+10 B/s (measured)" "$ERR" || fail "no calibration line"
check_run '
assert j["degradations"] == [], j["degradations"]
assert rep["coverage"]["time_base"] == "cycles"
assert [h["name"] for h in rep["hotspots"]] == ["main"]
h = rep["hotspots"][0]
assert h["resolution_level"] == "line" and h["share"]["value"] > 0.99, h
assert h["module"].endswith("/workload") and h["source_file"], h
# The Ceilings, computed here from the recorded kernel outputs: the maximum
# of each kernel s repetitions, measured (no dispersion > 10%, load 4.15 and
# 6.70 below half of 32 threads).
want = {}
for f in sorted(glob.glob(os.path.join(entry, "invocations", "*.json"))):
    inv = json.load(open(f))
    if os.path.basename(inv["argv"][0]) != "kernel-v0":
        continue
    reps = [float(l.split()[2]) for l in open(f[:-5] + ".stdout") if l.startswith("rep ")]
    name = {"triad": "dram_bandwidth", "fma_dp": "flops_dp", "fma_sp": "flops_sp"}[inv["argv"][1]]
    want[name] = max(reps)
assert want == {"dram_bandwidth": 9.925781e10, "flops_dp": 1.171347e12, "flops_sp": 2.340953e12}, want
for doc in (m["machine"], rep["machine"]):
    got = {c["name"]: c for c in doc["ceilings"]}
    assert set(got) == set(want), got
    for k, v in want.items():
        assert got[k]["value"] == v and got[k]["quality"] == "measured" and got[k]["reason"] is None, got[k]
# cycles is no clock and there is no FLOP counter: placement is unavailable,
# saying why, while the Ceilings are there.
assert h["achieved"]["value"] is None and h["achieved"]["reason"], h["achieved"]
assert h["attainable"]["value"] is None
assert h["attainable"]["reason"] == "no flops_dp raw counter in this Run", h["attainable"]
assert h["classification"] is None and h["classification_reason"] == "no flops_dp raw counter in this Run"
'
