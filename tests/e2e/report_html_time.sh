#!/bin/bash
# report.html drawn by headless Chromium: the time budget at the top of the page (wall, on CPU and off CPU with their base, blocked and preempted), the off-CPU Hotspots with their cause, the threads' budgets; and a Run without context switches shows its on-CPU time as unavailable, never 0
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp" <<'PY'
import copy, json, sys
src, out = sys.argv[1], sys.argv[2]
p = json.load(open(src))
def d(v, clock="wall clock (kernel context-switch timestamps)"):
    return {"value": v, "unit": "ns", "quality": "measured", "reason": None, "clock": clock,
            "lineage": ["offcpu_time"], "formula": "f"}
def row(tid, wall, cpu, pre):
    return {"node": "n1", "rank": -1, "thread": tid, "pid": 100, "name": None, "wall_ns": d(wall),
            "cpu_ns": d(cpu), "offcpu_ns": d(wall - cpu), "preempted_ns": d(pre)}
p["time_budget"] = {"mechanism": "context switches + sched_switch call stacks",
                    "wall_ns": d(2.0e9), "cpu_ns": d(1.5e9), "offcpu_ns": d(2.5e9),
                    "preempted_ns": d(0.5e9), "loci": [row(100, 2.0e9, 1.0e9, 0.25e9),
                                                       row(101, 2.0e9, 0.5e9, 0.25e9)],
                    # stacks of blocking switch-outs only: the preempted time without one
                    "preempted_unstacked_ns": d(0.4e9)}
p["offcpu_hotspots"] = [
    {"name": "nap_between_rounds", "cause": "sleep", "intervals": 4, "attributed": True,
     "time_ns": d(1.5e9), "share": {"value": 0.6, "unit": "ratio", "quality": "measured", "reason": None}},
    {"name": "(preempted: runnable, waiting for a CPU)", "cause": "other", "intervals": 0,
     "attributed": False, "time_ns": d(0.5e9), "share": {"value": 0.2, "unit": "ratio", "quality": "measured", "reason": None}}]
def dd(v):
    return {"value": v, "unit": "ns", "quality": "measured", "reason": None, "clock": "wall clock",
            "lineage": [], "formula": "f"}
p["openmp"] = {"runtime": "libgomp", "method": "m", "regions": [{"name": "main._omp_fn.0",
    "file": "/src/solver.c", "line": 120, "time_ns": dd(9e8), "threads": [
        {"thread": 0, "tid": 100, "work_ns": dd(9e8), "wait_ns": dd(0)},
        {"thread": 1, "tid": 101, "name": "omp<w>", "work_ns": dd(3e8), "wait_ns": dd(6e8)}]}]}
json.dump(p, open(out + "/payload.json", "w"))
q = copy.deepcopy(p)
un = {"value": None, "unit": "ns", "quality": "unavailable", "reason": "no context-switch records in this Run", "lineage": [], "formula": None}
q["time_budget"] = {"mechanism": "none", "wall_ns": {**d(3.0e9), "quality": "estimated", "reason": "the launch's duration"},
                    "cpu_ns": un, "offcpu_ns": un, "preempted_ns": un, "loci": []}
q["offcpu_hotspots"] = []
q["openmp"] = None
json.dump(q, open(out + "/payload-none.json", "w"))
PY
"$NUNATAK" report --payload "$tmp/payload.json" --html 2>"$tmp/err.txt"
dump_dom "file://$tmp/report.html" "$tmp/dom.html"
expect "$tmp/dom.html" 'Where the wall time went' \
	'Wall 2.00 s over 2 threads (4.00 s of thread time): on CPU 1.50 s (37.5% of the threads' "'"' wall time), off CPU 2.50 s (62.5%).' \
	'<code>nap_between_rounds</code>' '<td>sleep</td>' '(preempted: runnable, waiting for a CPU)' \
	'off-CPU Hotspot' 'off CPU (of the thread'"'"'s wall time)' 'class="tb-part tb-blocked"' \
	'OpenMP regions (libgomp)' '<code>solver.c:120</code>' 'thread 1' '66.7%' \
	'(tid 101)</span> <code>omp&lt;w&gt;</code>' \
	'of the preempted time after sched_yield or a preemption of user code: no call stack taken, by design'
# threads without a name (none recorded, or a Run from before names): no name column
reject "$tmp/dom.html" '<th>name</th>'
# the budget comes before the CPU Hotspots' synthesis
python3 - "$tmp/dom.html" <<'PY'
import sys
dom = open(sys.argv[1]).read()
t, s = dom.find("Where the wall time went"), dom.find("Hotspots above the statistical floor")
assert 0 <= t < s, (t, s)
PY
mkdir "$tmp/none"
cp "$tmp/payload-none.json" "$tmp/none/payload.json"
"$NUNATAK" report --payload "$tmp/none/payload.json" --html 2>"$tmp/err2.txt"
dump_dom "file://$tmp/none/report.html" "$tmp/dom2.html"
expect "$tmp/dom2.html" 'Where the wall time went' 'Wall time 3.00 s' '; on-CPU and off-CPU time <span class="unavail"'
reject "$tmp/dom2.html" 'no call stack taken, by design'
# Under MPI: the headline is the application's threads, the runtime's helper
# threads (asleep in their event loops) are said on their own line and marked
# in the threads' table, after the application's.
python3 - "$tmp/payload.json" "$tmp/mpi" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
tb = p["time_budget"]
for r in tb["loci"]:
    r["rank"], r["helper"] = 0 if r["thread"] == 100 else 1, False
    r["pid"] = r["thread"]
def d(v):
    return {"value": v, "unit": "ns", "quality": "measured", "reason": None,
            "clock": "wall clock (kernel context-switch timestamps)", "lineage": [], "formula": "f"}
for tid, rank, pid in ((130, 0, 100), (131, 1, 101)):
    tb["loci"].append({"node": "n1", "rank": rank, "thread": tid, "pid": pid, "helper": True,
                       "wall_ns": d(2.0e9), "cpu_ns": d(1e5), "offcpu_ns": d(2.0e9 - 1e5), "preempted_ns": d(0)})
tb["application_threads"] = 2
tb["helper_threads"] = {"count": 2, "ranks": 2, "per_rank_min": 1, "per_rank_max": 1, "rule": "the rule",
                        "thread_time_ns": d(4.0e9), "cpu_ns": d(2e5), "offcpu_ns": d(4.0e9 - 2e5), "preempted_ns": d(0),
                        "offcpu_hotspots": [{"name": "libevent_core-2.1.so.7.0.1", "cause": "MPI", "intervals": 2,
                                             "time_ns": d(4.0e9 - 2e5)}]}
json.dump(p, open(sys.argv[2] + "/payload.json", "w"))
PY
"$NUNATAK" report --payload "$tmp/mpi/payload.json" --html 2>"$tmp/err3.txt"
dump_dom "file://$tmp/mpi/report.html" "$tmp/dom3.html"
expect "$tmp/dom3.html" 'Wall 2.00 s over 2 application threads (4.00 s of thread time)' \
	'2 MPI runtime helper threads (1 per rank: progress, event loops): 4.00 s of thread time' \
	'<code>libevent_core-2.1.so.7.0.1</code>' 'not counted above' '<th>role</th>' \
	'MPI runtime helper (not in the totals)'
python3 - "$tmp/dom3.html" <<'PY'
import sys
dom = open(sys.argv[1]).read()
app, helper = dom.find(">application<"), dom.find("MPI runtime helper (not in the totals)")
assert 0 <= app < helper, ("application threads first in the table", app, helper)
PY
