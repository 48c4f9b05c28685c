#!/bin/bash
# The overhead's context switches (issue 27): under perf each switch of a recorded thread costs the kernel more than the samples' cost says (the sampling timer re-armed, the switch records), so a Run whose threads switch more often than they are sampled says so: the manifest's overhead carries context_switches, the switch-outs perf recorded (perf script's own count of them), and its reason and the summary's overhead line say they are not counted; a Run without switch records has no such key (not known is no zero) and no such clause
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v taskset >/dev/null || { echo "skip: taskset (util-linux) not installed"; exit 2; }
cc -O1 -pthread -o "$WORK/switch_pair" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/switch_pair.c"
cd "$WORK"
# one CPU of this test's own set: each of the two threads' handoffs blocks,
# a context switch each (20000 round trips: ~40000 switch-outs, against a
# few hundred samples of its CPU time)
cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')

"$NUNATAK" run -o "$WORK/sw" --offcpu switches -- taskset -c "$cpu" ./switch_pair 20000 \
	>out.txt 2>err.txt </dev/null || fail "the Run with switch records"
grep -qx "switch_pair done" out.txt || fail "the application's output"
data=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["files"]["perf.data"])' sw/manifest.json)
[ -f "sw/$data" ] || fail "no perf.data in the Run ($data)"
# perf's own reading of the recording: its switch-outs ("OUT", "OUT preempt")
perf script -i "sw/$data" --show-switch-events -F tid >script.out 2>script.err ||
	fail "perf script could not read the Run's recording"
outs=$(grep -c "PERF_RECORD_SWITCH OUT" script.out || true)
[ "$outs" -ge 20000 ] || fail "the two threads did not switch at each handoff: $outs switch-outs"
python3 - sw/manifest.json "$outs" <<'PY' || fail "the manifest's overhead"
import json, sys
o = json.load(open(sys.argv[1]))["overhead"]
outs = int(sys.argv[2])
assert o["context_switches"] == outs, (o, outs)
assert o["context_switches"] > o["samples"] > 0, o
assert f"not counted: the {outs} context switches perf recorded (more than its samples)" in o["reason"], o
PY
grep -q "^.*overhead: .*not counted: the $outs context switches perf recorded" err.txt ||
	fail "the summary's overhead line does not say the switches are left out: $(grep overhead err.txt)"

# no switch records: nothing said of them, no count (not known is no zero)
"$NUNATAK" run -o "$WORK/proc" --offcpu process -- taskset -c "$cpu" ./switch_pair 5000 \
	>out2.txt 2>err2.txt </dev/null || fail "the Run without switch records"
python3 - proc/manifest.json <<'PY' || fail "the manifest's overhead without switch records"
import json, sys
o = json.load(open(sys.argv[1]))["overhead"]
assert "context_switches" not in o and "context switches" not in (o["reason"] or ""), o
PY
if grep -q "overhead: .*context switches" err2.txt; then
	fail "switches said without switch records: $(grep overhead err2.txt)"
fi
echo "ok: $outs switch-outs counted and said"
