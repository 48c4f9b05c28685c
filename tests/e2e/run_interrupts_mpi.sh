#!/bin/bash
# SIGINT and SIGTERM to `nunatak run -- mpirun -n 2` reach both ranks (directly, once; mpirun is left to end with them), the exit status is the ranks' (0), and the Run is written, marked interrupted, with every rank's data
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/interrupts_lib.sh"
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
for sig in INT TERM; do
	rm -f ready.* got-*
	"$NUNATAK" run -o "$WORK/r-mpi-$sig" -- mpirun "${flags[@]}" -n 2 ./faulty ready-sigterm \
		> "out-mpi-$sig.txt" 2> "err-mpi-$sig.txt" &
	NPID=$!
	wait_ready 2
	kill -"$sig" $NPID
	set +e; wait $NPID; rc=$?; set -e
	num=$(kill -l "$sig")
	[ "$(ls got-"$num".* 2>/dev/null | wc -l)" -eq 2 ] ||
		fail "SIG$sig did not reach both ranks: $(ls got-* 2>/dev/null | tr '\n' ' ')"
	echo "SIG$sig: nunatak exited $rc"
	# The ranks' handlers exit 0; mpirun, not signalled while every rank
	# runs below it here, ends with them: 0 (signalled, it would kill the
	# job and exit 1, losing ranks whose shim was still writing).
	[ "$rc" -eq 0 ] || fail "SIG$sig: nunatak exited $rc, the ranks exited 0"
	python3 - "$WORK/r-mpi-$sig" "SIG$sig" <<'PY' || fail "the MPI Run is not marked interrupted"
import json, os, sys
run, intr = sys.argv[1:3]
m = json.load(open(os.path.join(run, "manifest.json")))
r = m["run"]
assert r["status"] == "complete" and r["interrupted_by"] == intr, r
assert r["world_size"] == 2, r
assert "pivot" in m["files"], m["files"]
# every rank's data flushed (issue 24 item 16): no rank lost its rank.json
names = [d.get("name") for d in m.get("degradations", [])]
assert "ranks-missing" not in names, [d for d in m["degradations"] if d.get("name") == "ranks-missing"]
for r in range(2):
    assert os.path.exists(os.path.join(run, "collect", "rank-%d" % r, "rank.json")), r
PY
	grep -q "application: interrupted by SIG$sig" "err-mpi-$sig.txt" || fail "no interrupted line"
done

# A counting rank (rank_threshold 1: rank 1 runs under perf stat and the
# shim's relay): SIGTERM reaches its application, not perf stat (which would
# die of it, its counts lost, and the shim once ran the application again).
printf '[sampling]\nrank_threshold = 1\n' > nunatak.toml
rm -f ready.* got-*
"$NUNATAK" run -o "$WORK/r-mpi-count" -- mpirun "${flags[@]}" -n 2 ./faulty ready-sigterm \
	> out-mpi-count.txt 2> err-mpi-count.txt &
NPID=$!
wait_ready 2
kill -TERM $NPID
for _ in $(seq 3000); do # bounded: a second run of the application would never end
	kill -0 $NPID 2>/dev/null || break
	[ "$(ls ready.* | wc -l)" -gt 2 ] && { kill -KILL -- -$NPID; fail "the application ran twice in a rank"; }
	sleep 0.1
done
set +e; wait $NPID; rc=$?; set -e
rm -f nunatak.toml
[ "$rc" -eq 0 ] || fail "counting rank, SIGTERM: nunatak exited $rc, the ranks exited 0"
[ "$(ls got-15.* | wc -l)" -eq 2 ] || fail "SIGTERM did not reach both ranks: $(ls got-*)"
python3 - "$WORK/r-mpi-count" <<'PY' || fail "the counting rank lost its counts"
import json, os, sys
r = json.load(open(os.path.join(sys.argv[1], "collect", "rank-1", "rank.json")))
assert r["exit_code"] == 0, r
# counted, unless perf stat cannot count here at all (the rank then ran
# bare and says why); a perf stat killed by the SIGTERM counts nothing
if r["role"] == "bare":
    assert r["degradations"], r
else:
    assert r["role"] == "counter" and r["counted"], r
PY
echo "ok: SIGINT/SIGTERM reach both ranks through mpirun, a counting rank's too"
