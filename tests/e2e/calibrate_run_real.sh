#!/bin/bash
# A real Run calibrates on its first run: the Machine's Ceilings embedded in the manifest, the recording and its replay, placement unavailable for a precise reason, no ceilings-unavailable degradation
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v perf >/dev/null || { echo "skip: no perf"; exit 2; }
unset NUNATAK_NO_CALIBRATE
export XDG_CACHE_HOME="$WORK/cache"
cd "$WORK"
perf record -q -e task-clock -o probe.data -- true >/dev/null 2>&1 ||
	{ echo "skip: perf cannot sample task-clock here"; exit 2; }
printf '[calibration]\nbudget = 300\n' > nunatak.toml
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
meta = json.load(open("entry/meta.json"))
assert meta["machine"]["ceilings"] == m["machine"]["ceilings"], meta["machine"]
r = json.load(open("replayed.json"))
assert r["source"] == "recorded" and r["machine"]["ceilings"] == m["machine"]["ceilings"], r
PY
grep -Eq "no (roofline )?placement( for any Hotspot)?: no flops_dp raw counter in this Run" run.txt ||
	fail "the summary must say why"
echo ok
