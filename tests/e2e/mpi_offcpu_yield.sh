#!/bin/bash
# MPI ranks take off-CPU stacks of blocking switch-outs only, as root (issue 27): a rank whose two threads yield to each other 100 000 times on one CPU, spin there, then sleep once: its perf.data holds the scheduler's tracepoint with far fewer stack samples than switch-outs, the sleep's stack is still there (off-CPU Hotspot, cause sleep), and the Run states the preempted time left without a stack, by design; doctor says which stacks ranks get
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "skip: not root: the stacks of blocking switch-outs need root (e2e_mpi_offcpu_yield_user covers an ordinary user)"; exit 2; }
tp=/sys/kernel/tracing/events/sched/sched_switch/id
[ -r "$tp" ] || tp=/sys/kernel/debug/tracing/events/sched/sched_switch/id
[ -r "$tp" ] || { echo "skip: no readable tracefs here (sched:sched_switch's id): ranks take a stack at every switch-out"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
perf record -q -o "$tmp/probe.data" -e 'sched:sched_switch/call-graph=fp/' --filter 'prev_state != 0' -- true >/dev/null 2>&1 || {
	echo "skip: perf cannot record sched:sched_switch with a filter here"; exit 2; }
rm -f "$tmp/probe.data"
export NUNATAK_SITE_CONFIG=/dev/null
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$tmp/ys" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/yield_sleep.c"
"$NUNATAK" run -o "$tmp/run" -- mpirun --oversubscribe --allow-run-as-root -n 1 "$tmp/ys" 50000 "$tmp/truth.txt" 100 \
	>"$tmp/out" 2>"$tmp/err" </dev/null || { echo "nunatak run failed ($?)"; cat "$tmp/err"; exit 1; }
[ -s "$tmp/truth.txt" ] || { echo "the program did not write its own figures"; cat "$tmp/err"; exit 1; }
data=$tmp/run/collect/rank-0/perf.data
[ -f "$data" ] || { echo "rank 0 left no perf.data"; ls -R "$tmp/run/collect"; exit 1; }
perf evlist -i "$data" >"$tmp/evlist" 2>/dev/null
grep -qx "sched:sched_switch" "$tmp/evlist" || { echo "the rank's perf did not record sched:sched_switch:"; cat "$tmp/evlist" "$tmp/err"; exit 1; }
# stack samples at a switch-out (either event), against the switch-outs
perf script -i "$data" -F event 2>/dev/null | grep -cE "sched:sched_switch|context-switches" >"$tmp/stacks" || true
perf script -i "$data" --show-switch-events -F tid 2>/dev/null | grep -c "PERF_RECORD_SWITCH OUT" >"$tmp/switches" || true
stacks=$(cat "$tmp/stacks") switches=$(cat "$tmp/switches")
echo "switch-outs $switches, stack samples $stacks"
[ "$switches" -ge 10000 ] || { echo "the yields did not switch ($switches switch-outs for 100 000 yields)"; exit 1; }
[ "$stacks" -ge 1 ] && [ $((stacks * 20)) -le "$switches" ] || {
	echo "a stack at (nearly) every switch-out: $stacks stack samples for $switches switch-outs"; exit 1; }
grep -q "of the preempted time after sched_yield or a preemption of user code: no call stack taken, by design" "$tmp/err" || {
	echo "the summary does not say the preempted time has no stack"; cat "$tmp/err"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/payload.json"
python3 - "$tmp/payload.json" "$tmp/truth.txt" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
yields, slept = map(float, open(sys.argv[2]).read().split())
tb = p["time_budget"]
assert tb["mechanism"] == "context switches + blocking switch-outs' call stacks", tb["mechanism"]
u = tb["preempted_unstacked_ns"]
assert u["quality"] == "measured" and u["value"] > 0, u
assert u["value"] <= tb["preempted_ns"]["value"] + 1, (u, tb["preempted_ns"])
sleeps = [h for h in p["offcpu_hotspots"] if h["attributed"] and h["cause"] == "sleep"]
assert sleeps and max(h["time_ns"]["value"] for h in sleeps) >= 0.75 * slept, (p["offcpu_hotspots"], slept)
PY
"$NUNATAK" doctor >"$tmp/doctor" 2>&1 || true
grep -q "MPI ranks: call stacks of blocking switch-outs only" "$tmp/doctor" || {
	echo "doctor does not say which stacks ranks get"; cat "$tmp/doctor"; exit 1; }
echo ok
