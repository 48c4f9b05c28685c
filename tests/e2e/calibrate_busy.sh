#!/bin/bash
# a calibration with a busy core is cached (estimated where it must be, with its reasons) and the next Run reads it without calibrating again
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler (the calibration kernels are built here)"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
unset NUNATAK_NO_CALIBRATE
export XDG_CACHE_HOME="$WORK/cache"
cd "$WORK"
# One core kept busy for the whole calibration by a loop this test starts
# (pinned to the first allowed CPU) and always stops.
BUSY=
stop_busy() { [ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null; wait 2>/dev/null; BUSY=; }
trap 'stop_busy; rm -rf "$WORK"' EXIT
python3 -c 'import os
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
while True: pass' &
BUSY=$!
printf '[calibration]\nbudget = 300\n' > nunatak.toml
"$NUNATAK" calibrate --json > cal.json 2> cal.txt </dev/null || fail "calibrate exited $?"
stop_busy
"$NUNATAK" run --json -o "$WORK/run" -- true > run.json 2> run.txt </dev/null || fail "run exited $?"
python3 - <<'PY' || fail "assertions"
import json, os
c = json.load(open("cal.json"))
cal = c["calibration"]
assert c["source"] == "calibrated", c["source"]
answered = cal["measured"] + cal["estimated"]
if answered == 0:
    # Honest even then: it says why, and the next Run will try again.
    assert not c["stored"] and c["not_stored"].startswith("no kernel answered"), c
    raise SystemExit(0)
# Kept whatever its Quality: measured, or estimated with the reason.
assert c["stored"] and os.path.isfile(c["profile"]), c
for x in c["machine"]["ceilings"]:
    assert (x["quality"] == "measured") == (x["reason"] is None), x
    # the triad on the free cores only (said so); the FMA kernels, timed on
    # each thread's CPU time, on every allocated core, busy or not
    if x["name"] == "dram_bandwidth" and cal["threads"] < max(1, int(c["machine"]["allocated_cores"])):
        assert x["quality"] == "estimated" and "allocated cores (the others were busy)" in x["reason"], x
    if x["name"].startswith("flops_") and x["reason"]:
        assert "others were busy" not in x["reason"], x
assert cal["flops_threads"] == max(1, int(c["machine"]["allocated_cores"])), cal
cached = json.load(open(c["profile"]))["machine"]["ceilings"]
assert cached == c["machine"]["ceilings"], (cached, c["machine"]["ceilings"])
# The next Run read that profile: no calibration, the same Ceilings.
run = json.load(open("run.json"))
m = json.load(open(os.path.join(run["run"], "manifest.json")))
assert m["machine"]["ceilings"] == cached, (m["machine"]["ceilings"], cached)
err = open("run.txt").read()
assert "calibrating Machine" not in err, err
if any(x["quality"] != "measured" for x in cached):
    assert "estimated (their reasons are in the Run); `nunatak calibrate --force` measures again" in err, err
PY
echo ok
