#!/bin/bash
# MPI ranks of an ordinary user (`nobody` when the suite runs as root, the current user otherwise) fall back from the scheduler's tracepoint (root or perf_event_paranoid -1 only): the rank's perf records no sched:sched_switch, the Run still says which mechanism it used (switch stacks at every switch-out where the user may profile the kernel, else switches without stacks), no yield's time is claimed to have been left without a stack by design, and doctor says why ranks get no blocking-only stacks
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/other_user.sh"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
[ "$paranoid" -le -1 ] && { echo "skip: perf_event_paranoid is -1: an ordinary user may record the tracepoint here"; exit 2; }
[ "$paranoid" -ge 3 ] && { echo "skip: perf_event_paranoid $paranoid: an ordinary user cannot sample here"; exit 2; }
other_user_setup
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$home/ys" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/yield_sleep.c"
[ ${#as[@]} -eq 0 ] || chown -R nobody "$home"
cat >"$home/job.sh" <<SH
set -eu
export HOME="$home" XDG_CACHE_HOME="$home/cache" NUNATAK_SITE_CONFIG=/dev/null
cd "$home"
"$NUNATAK" run -o "$home/run" -- mpirun --oversubscribe -n 1 ./ys 20000 truth.txt 50 >out 2>err </dev/null
"$NUNATAK" report --json "$home/run" >payload.json
"$NUNATAK" doctor >doctor 2>&1 || true
SH
"${as[@]}" bash "$home/job.sh" </dev/null || {
	echo "the run as $("${as[@]}" id -un) failed"; cat "$home/err" 2>/dev/null; exit 1; }
data=$home/run/collect/rank-0/perf.data
[ -f "$data" ] || { echo "rank 0 left no perf.data"; cat "$home/err"; exit 1; }
"${as[@]}" perf evlist -i "$data" >"$tmp/evlist" 2>"$tmp/evlist.err" || { echo "perf evlist failed"; cat "$tmp/evlist.err"; exit 1; }
if grep -q "sched:sched_switch" "$tmp/evlist"; then
	echo "an ordinary user's rank recorded sched:sched_switch:"; cat "$tmp/evlist"; exit 1
fi
grep -q "no call stack taken, by design" "$home/err" && {
	echo "the Run claims stacks left out by design without the tracepoint"; cat "$home/err"; exit 1; }
grep -q "MPI ranks: call stacks of blocking switch-outs only" "$home/doctor" && {
	echo "doctor claims blocking-only stacks for an ordinary user"; cat "$home/doctor"; exit 1; }
python3 - "$home/payload.json" "$paranoid" "$tmp/evlist" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
paranoid = int(sys.argv[2])
ev = open(sys.argv[3]).read()
tb = p["time_budget"]
assert "preempted_unstacked_ns" not in tb, tb
deg = [d["name"] for d in p["degradations"]]
if paranoid <= 1 and "context-switches" in ev:
    # the user may profile the kernel: a stack at every switch-out
    assert tb["mechanism"] == "context switches + their call stacks", tb["mechanism"]
elif tb["mechanism"] != "context switches":
    # perf refused the switches here: said, never silent
    assert "offcpu-unattributed" in deg, (tb["mechanism"], deg)
PY
echo "ok (as $("${as[@]}" id -un), perf_event_paranoid $paranoid)"
