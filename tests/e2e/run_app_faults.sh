#!/bin/bash
# nunatak run on an application that misbehaves (segfault, abort, SIGKILL, exit 3, fork+exec, threads outliving main, closed stdout, megabytes of output, killed with region traces open): its status passes through, its output byte-exact, the Run is complete, names the signal and recovers the traces
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/faulty" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c"
cd "$WORK"

# check_run DIR EXIT SIGNAL|- : a complete Run whose manifest, --json-free
# summary and pivot say how the application ended.
check_run() {
	python3 - "$@" <<'PY' || fail "Run $1 does not say how the application ended"
import json, os, sqlite3, sys
run, code, sig = sys.argv[1], int(sys.argv[2]), sys.argv[3]
m = json.load(open(os.path.join(run, "manifest.json")))
r = m["run"]
assert r["exit_code"] == code, r
assert r["status"] == "complete", r
assert "interrupted_by" not in r, r
if sig == "-":
    assert "signal" not in r and r["outcome"] == f"the application exited with {code}", r
else:
    assert r["signal"] == sig and m["passes"][0]["signal"] == sig, (r, m["passes"])
    assert r["outcome"] == f"the application was ended by {sig} (exit {code})", r
assert m["passes"][0]["exit_code"] == code and m["passes"][0]["end"], m["passes"]
assert "pivot" in m["files"] and "report" in m["files"], m["files"]
db = sqlite3.connect(os.path.join(run, "pivot.sqlite"))
db.execute("select count(*) from hotspots").fetchone()
assert not os.path.exists(os.path.join(run, ".manifest-abandoned.json")), "abandoned variant left behind"
PY
}
hotspot() { # run-dir function: is it among the Run's Hotspots (perf sampled it)?
	python3 - "$1" "$2" <<'PY'
import json, os, sqlite3, sys
run, fn = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(run, "manifest.json")))
tools = [c["tool"] for p in m["passes"] for c in p["collectors"]]
if "perf" not in tools:
    sys.exit(0)  # the preload sampler or none: what follows children is perf's
names = {n for (n,) in sqlite3.connect(os.path.join(run, "pivot.sqlite")).execute("select name from hotspots")}
assert fn in names, (fn, names)
PY
}
run_case() { # name expected-exit args...
	local name=$1 want=$2 rc
	shift 2
	set +e
	"$NUNATAK" run -o "$WORK/r-$name" -- ./faulty "$@" > "out-$name.txt" 2> "err-$name.txt"
	rc=$?
	set -e
	[ "$rc" -eq "$want" ] || fail "$name: nunatak exited $rc, the application's status is $want"
}

run_case segv 139 segv
check_run r-segv 139 SIGSEGV
grep -q "the application was ended by SIGSEGV (exit 139)" err-segv.txt || fail "no SIGSEGV warning"
grep -q "application: ended by SIGSEGV (exit 139)" err-segv.txt || fail "no SIGSEGV line in the summary"
hotspot r-segv burn || fail "the samples before the segfault were lost"
"$NUNATAK" report r-segv > report-segv.txt 2>&1 || fail "nunatak report on the crashed Run"
grep -q "application: ended by SIGSEGV (exit 139)" report-segv.txt ||
	fail "nunatak report does not say how the application ended"

run_case abort 134 abort
check_run r-abort 134 SIGABRT
grep -q "application: ended by SIGABRT (exit 134)" err-abort.txt || fail "no SIGABRT line"

run_case kill 137 kill
check_run r-kill 137 SIGKILL
grep -q "application: ended by SIGKILL (exit 137)" err-kill.txt || fail "no SIGKILL line"

run_case exit3 3 exit 3
check_run r-exit3 3 -
grep -q "application: ended by" err-exit3.txt && fail "an exit code is not a signal"

run_case forkexec 0 forkexec
check_run r-forkexec 0 -
grep -qx "child ran" out-forkexec.txt || fail "the exec'd child's output was lost"
hotspot r-forkexec child_burn || fail "the exec'd child was not followed"

run_case threads 0 threads
check_run r-threads 0 -
hotspot r-threads thread_burn || fail "the thread that outlived main was not sampled"

# Closed stdout (>&-): the application sees it closed (EBADF), as without
# nunatak, and nunatak still writes its Run.
set +e
"$NUNATAK" run -o "$WORK/r-closed" -- ./faulty stdout >&- 2> err-closed.txt
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "closed stdout: exit $rc"
grep -q "stdout write: Bad file descriptor" err-closed.txt || fail "the application's closed stdout was not closed"
check_run r-closed 0 -

# 24 MB through stdout, byte-exact, and the stderr of nunatak apart.
BYTES=$((24 * 1024 * 1024 + 17))
./faulty out $BYTES > direct.bin
run_case big 0 out $BYTES
cmp -s direct.bin out-big.txt || fail "24 MB of application output did not pass through byte-exact"
[ "$(stat -c %s out-big.txt)" -eq "$BYTES" ] || fail "output size changed"
check_run r-big 0 -
# An instrumented application killed mid-run: the region traces it had
# streamed are recovered into the Run's region_stats, and a named
# degradation says the counts are a lower bound.
prog="$NUNATAK_BUILD_DIR/tests/programs/lib_stream_prog"
[ -x "$prog" ] || fail "tests/programs not built ($prog)"
"$NUNATAK" run -o "$WORK/r-traces" -- "$prog" crash 200000 > out-traces.txt 2> err-traces.txt &
NPID=$!
for _ in $(seq 600); do grep -q recorded out-traces.txt && break; sleep 0.1; done
grep -q "recorded 200000" out-traces.txt || fail "the instrumented program never recorded"
APP=$(python3 - "$prog" <<'PY'
import os, sys
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if os.readlink(f"/proc/{pid}/exe") == os.path.realpath(sys.argv[1]):
            print(pid)
    except OSError:
        pass
PY
)
[ -n "$APP" ] || fail "no instrumented process found"
kill -KILL $APP
set +e; wait $NPID; rc=$?; set -e
[ "$rc" -eq 137 ] || fail "killed instrumented application: exit $rc, expected 137"
check_run r-traces 137 SIGKILL
python3 - "$WORK/r-traces" <<'PY' || fail "the killed application's region traces were not recovered"
import json, os, sqlite3, sys
run = sys.argv[1]
calls = dict(sqlite3.connect(os.path.join(run, "pivot.sqlite")).execute("select path, calls from region_stats"))
assert calls.get("worker") == 1000, calls          # the thread's trace, finished before the kill
assert 0 < calls.get("step", 0) <= 100000, calls   # main's, recovered up to its last flush
m = json.load(open(os.path.join(run, "manifest.json")))
d = [x for x in m["degradations"] if x["name"] == "region-traces-cut-short"]
assert d and "lower bound" in d[0]["message"], m["degradations"]
PY
echo "ok: segv abort kill exit fork+exec threads closed-stdout 24MB killed-with-traces"
