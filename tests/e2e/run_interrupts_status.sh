#!/bin/bash
# A Ctrl-C (from a terminal or kill) under perf reaches the application alone: its own exit status (42 from its SIGINT handler) is nunatak's and the Run's, and an application that ignores SIGINT survives the first one (perf no longer turns it into a SIGTERM); the second abandons
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/interrupts_lib.sh"
need_perf

outcome() { # run-dir: status, interrupted_by, signal, outcome on one line
	python3 - "$1" <<'PY'
import json, os, sys
r = json.load(open(os.path.join(sys.argv[1], "manifest.json")))["run"]
print(r["status"], r.get("interrupted_by"), r.get("signal"), "|", r["outcome"])
PY
}

# 1. kill -INT to nunatak: the application's handler exits 42.
rm -f ready.* got-*
"$NUNATAK" run --collector perf -o "$WORK/r-kill42" -- ./faulty ready-int42 \
	> out-kill42.txt 2> err-kill42.txt &
NPID=$!
wait_ready 1
kill -INT $NPID
set +e; wait $NPID; rc=$?; set -e
[ "$rc" -eq 42 ] || fail "kill -INT: nunatak exited $rc, the application exited 42"
ls got-2.* > /dev/null || fail "kill -INT: SIGINT did not reach the application"
o=$(outcome "$WORK/r-kill42")
case "$o" in "complete SIGINT None | interrupted by SIGINT; the application exited with 42"*) ;;
*) fail "kill -INT: the Run says: $o" ;; esac
grep -q "application: interrupted by SIGINT (exit 42)" err-kill42.txt || fail "kill -INT: summary"

# 2. kill -INT twice to an application that ignores SIGINT: the first is
# ignored (perf used to SIGTERM it: 'ended by SIGTERM'); the second abandons.
rm -f ready.* got-*
"$NUNATAK" run --collector perf -o "$WORK/r-deaf" -- ./faulty ready-deafint \
	> out-deaf.txt 2> err-deaf.txt &
NPID=$!
wait_ready 1
APP=$(ls ready.* | sed 's/ready\.//')
kill -INT $NPID
wait_delivered $NPID
kill -0 "$APP" 2>/dev/null || fail "the application ignoring SIGINT died at the first interrupt"
kill -INT $NPID
set +e; wait $NPID; rc=$?; set -e
[ "$rc" -eq 130 ] || fail "a second interrupt must end nunatak with 130, got $rc"
o=$(outcome "$WORK/r-deaf")
case "$o" in "abandoned SIGINT SIGKILL | "*) ;;
*) fail "deaf: the application must end by the abandon's SIGKILL, the Run says: $o" ;; esac

# 3. The same from a terminal (a pseudo-terminal; ^C is sent by its line
# discipline to the foreground process group, as a user's Ctrl-C).
cat > pty_int.py <<'PY'
import glob, os, signal, sys
sys.path.insert(0, os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "tests/fixtures/run"))
from pty_run import Pty, sigint_pending as pending
presses, cmd = int(sys.argv[1]), sys.argv[2:]
term = Pty(cmd, "pty-out.txt", "wb")
pid, fd, pump = term.pid, term.fd, term.pump
for _ in range(6000):
    if glob.glob("ready.*"): break
    if not pump(0.1): break
for i in range(presses):
    os.write(fd, b"\x03")
    # The line discipline echoes ^C after it sent SIGINT to the foreground
    # group; then until nunatak took it: a second ^C is not merged with
    # the first (bounded waits, not timed assertions).
    for _ in range(3000):
        if term.seen.count(b"^C") > i or not pump(0.1): break
    for _ in range(600):
        if not pending(pid): break
        pump(0.1)
for _ in range(600):
    if not pump(1.0): break
else:
    os.kill(pid, signal.SIGKILL)
    print("nunatak did not end within 600 s"); sys.exit(1)
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st))
PY
rm -f ready.* got-*
set +e; rc=$(python3 pty_int.py 1 "$NUNATAK" run --collector perf -o "$WORK/r-tty42" -- ./faulty ready-int42); prc=$?; set -e
[ $prc -eq 2 ] && { echo "$rc"; exit 2; }
[ "$rc" = 42 ] || fail "Ctrl-C on a terminal: nunatak exited $rc, the application exited 42 $(cat pty-out.txt)"
o=$(outcome "$WORK/r-tty42")
case "$o" in "complete SIGINT None | interrupted by SIGINT; the application exited with 42"*) ;;
*) fail "Ctrl-C on a terminal: the Run says: $o" ;; esac

rm -f ready.* got-*
rc=$(python3 pty_int.py 2 "$NUNATAK" run --collector perf -o "$WORK/r-ttydeaf" -- ./faulty ready-deafint)
[ "$rc" = 130 ] || fail "two Ctrl-C on a terminal: nunatak exited $rc $(cat pty-out.txt)"
o=$(outcome "$WORK/r-ttydeaf")
case "$o" in "abandoned SIGINT SIGKILL | "*) ;;
*) fail "two Ctrl-C on a terminal, deaf application: the Run says: $o" ;; esac
echo "ok: the application's own status under perf after kill -INT and a terminal's Ctrl-C; an application deaf to SIGINT survives the first"
