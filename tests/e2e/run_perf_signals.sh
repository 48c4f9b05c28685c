#!/bin/bash
# nunatak run with real perf: an application ended by SIGTERM, or SIGTERM to nunatak itself, still leaves a complete Run
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
build_two_hot
cd "$WORK"
check_run() { # dir expected-exit-code
	python3 - "$1" "$2" <<'PY' || fail "incomplete Run $1"
import json, os, sqlite3, sys
run, code = sys.argv[1], int(sys.argv[2])
m = json.load(open(os.path.join(run, "manifest.json")))
assert m["run"]["exit_code"] == code, m["run"]
assert m["passes"][0]["exit_code"] == code and m["passes"][0]["end"], m["passes"]
assert "pivot" in m["files"], m["files"]
sqlite3.connect(os.path.join(run, "pivot.sqlite")).execute("select count(*) from hotspots").fetchone()
PY
}
wait_child() { # parent-pid pattern: the pid of its first child whose command matches
	# /proc, not ps: a minimal Debian image has no procps.
	python3 - "$1" "$2" <<'PY' || fail "no child of $1 matching $2"
import os, re, sys, time
parent, pattern = sys.argv[1], re.compile(sys.argv[2])
for _ in range(300):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
            cmd = open(f"/proc/{pid}/cmdline").read().replace("\0", " ")
        except OSError:
            continue
        ppid = stat[stat.rindex(")") + 2:].split()[1]
        if ppid == parent and pattern.search(cmd):
            print(pid)
            sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
}

# 1. SIGTERM to the application (child of perf, child of nunatak).
"$NUNATAK" run -o "$WORK/r1" -- ./two_hot 1000 0 30 2> err1.txt &
NPID=$!
PERF=$(wait_child $NPID "perf record")
APP=$(wait_child "$PERF" two_hot)
sleep 0.5
kill -TERM "$APP"
set +e; wait $NPID; RC=$?; set -e
[ "$RC" -eq 143 ] || fail "exit code $RC after SIGTERM to the app, expected 143"
check_run "$WORK/r1" 143

# 2. SIGTERM to nunatak: forwarded, and nunatak still writes the Run.
"$NUNATAK" run -o "$WORK/r2" -- ./two_hot 1000 0 30 2> err2.txt &
NPID=$!
PERF=$(wait_child $NPID "perf record")
wait_child "$PERF" two_hot >/dev/null
sleep 0.5
kill -TERM $NPID
set +e; wait $NPID; RC=$?; set -e
[ "$RC" -eq 143 ] || fail "exit code $RC after SIGTERM to nunatak, expected 143"
check_run "$WORK/r2" 143
grep -q "Run: " err2.txt || fail "nunatak died before reporting the Run"
