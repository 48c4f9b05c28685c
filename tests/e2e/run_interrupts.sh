#!/bin/bash
# SIGINT and SIGTERM to `nunatak run` reach the application (under perf or bare), the Run is written and marked interrupted; a second interrupt kills an application that ignores the first and leaves an abandoned Run at once
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/interrupts_lib.sh"
interrupt_case auto
interrupt_case none

# 2. An application deaf to SIGINT: the first Ctrl-C is forwarded and
# ignored; the second makes nunatak stop waiting: every process of the
# application is killed, the Run is marked abandoned, nunatak exits 130.
rm -f ready.* got-*
"$NUNATAK" run -o "$WORK/r-deaf" -- ./faulty ready-deaf > out-deaf.txt 2> err-deaf.txt &
NPID=$!
wait_ready 1
APP=$(ls ready.* | sed 's/ready\.//')
kill -INT $NPID
wait_delivered $NPID # taken: the second is not merged with it
sleep 0.5 # the first one is being ignored; not a timing assertion
kill -0 $NPID 2>/dev/null || fail "nunatak ended after one interrupt of a deaf application"
kill -INT $NPID
set +e; wait $NPID; rc=$?; set -e
[ "$rc" -eq 130 ] || fail "a second interrupt must end nunatak with 130, got $rc"
for _ in $(seq 50); do kill -0 "$APP" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$APP" 2>/dev/null && ! grep -q zombie "/proc/$APP/status" 2>/dev/null; then
	kill -KILL "$APP"; fail "the application outlived a second interrupt"
fi
check "$WORK/r-deaf" abandoned SIGINT
grep -q "interrupted twice" err-deaf.txt || fail "no word of the abandon"
"$NUNATAK" report "$WORK/r-deaf" > /dev/null 2> report-deaf.txt && fail "report of an abandoned Run must fail"
grep -q "this Run is abandoned" report-deaf.txt || fail "report does not say the Run was abandoned"
echo "ok: SIGINT/SIGTERM forwarded under perf and bare; second interrupt abandons"
