#!/bin/bash
# --offcpu asks for less than the machine allows (a cheaper collection): `switches` gives the per-thread budget from the context switches with no off-CPU call stack (no attributed off-CPU Hotspot), `process` the process's wall and CPU time only; each announced as offcpu-unattributed saying it was asked (where the machine would have given more), and a bad word is a usage error
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -o "$WORK/sleeper" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/sleeper.c"
cd "$WORK"
rc=0
"$NUNATAK" run --offcpu bogus -- ./sleeper "$WORK/t0.txt" > /dev/null 2> bad_err.txt </dev/null || rc=$?
[ "$rc" = 125 ] || fail "--offcpu bogus: exit $rc, expected 125 (usage)"
grep -q -- "--offcpu expects auto, switches or process" bad_err.txt || fail "the usage error does not say what --offcpu expects"
[ ! -e t0.txt ] || fail "the application ran despite the usage error"
for mode in switches process; do
	"$NUNATAK" run --offcpu "$mode" -o "$WORK/run_$mode" --no-calibrate -- ./sleeper "$WORK/truth_$mode.txt" \
		> "out_$mode.txt" 2> "err_$mode.txt" </dev/null || fail "nunatak run --offcpu $mode"
	[ -s "truth_$mode.txt" ] || fail "the program did not write its own times ($mode)"
	"$NUNATAK" report --json "$WORK/run_$mode" > "rep_$mode.json" 2> "rep_err_$mode.txt" ||
		fail "nunatak report --json ($mode)"
done
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep_switches.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
# Would this machine give the call stacks? Then `switches` is less than it
# allows, said as asked.
STACKS=$("$NUNATAK" doctor --json 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(int(any(c.get("name") == "offcpu" and (c.get("detail") or "").startswith("sched-stacks")
              for c in d.get("checks", []))))' 2>/dev/null || echo 0)
python3 - "$STACKS" <<'PY' || fail "the asked mechanisms"
import json, sys
stacks = sys.argv[1] == "1"
for mode in ("switches", "process"):
    rep = json.load(open("rep_%s.json" % mode))
    tb = rep["time_budget"]
    deg = [d for d in rep["degradations"] if d["name"] == "offcpu-unattributed"]
    assert deg, (mode, "no offcpu-unattributed", rep["degradations"])
    asked = [d for d in deg if d["message"].startswith("--offcpu %s:" % mode)]
    if stacks or mode == "process":
        assert asked and "(asked)" in asked[0]["message"] and asked[0]["remedy"], (mode, deg)
    assert not any(h["attributed"] for h in rep["offcpu_hotspots"]), (mode, rep["offcpu_hotspots"])
    wall, cpu = map(float, open("truth_%s.txt" % mode).read().split())
    truth = (wall - cpu) * 1e9
    if mode == "process":
        assert tb["mechanism"] == "process rusage", tb["mechanism"]
        assert tb["loci"] == [], tb["loci"]
        assert tb["offcpu_ns"]["quality"] != "measured", tb["offcpu_ns"]
    elif tb["mechanism"] == "context switches":  # unless perf refused them (announced)
        off = tb["offcpu_ns"]["value"]
        assert tb["offcpu_ns"]["quality"] == "measured" and len(tb["loci"]) == 1, tb
        assert abs(off - truth) <= 0.15 * truth, ("offcpu_ns %.0f vs the program's own %.0f" % (off, truth))
    else:
        assert any("switch-events" in d["message"] for d in deg), (tb["mechanism"], deg)
print("ok: --offcpu switches and process (machine gives stacks: %s)" % stacks)
PY
grep -q "off-CPU time not attributed to functions: no scheduler call stacks in this Run (the degradation offcpu-unattributed says why" err_switches.txt ||
	grep -q "perf rejected --switch-events" err_switches.txt ||
	fail "the summary does not say the off-CPU time is not attributed"
