#!/bin/bash
# GCC's libgomp (no OMPT), two parallel regions of opposite imbalance (thread 0 works 3x in the first, thread 1 2x in the second): the payload's openmp has both regions apart (main._omp_fn.0 and .1, each with its pragma's line) and each thread's work in each; as root (the scheduler's stacks) the waits are split between the regions: each region's waiting thread gets at least 70% (-50 ms) of what it timed itself at that region's barrier and at most 130% (+200 ms, + its own wait in the other region), the other thread hardly any, estimated with the reason; the summary names 2 regions
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 2; }
SRC="$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/omp_two_regions.c"
gcc -O1 -g -fno-omit-frame-pointer -fopenmp -o "$WORK/omp_two_regions" "$SRC" 2> "$WORK/cc.txt" ||
	{ echo "skip: gcc -fopenmp cannot build here (libgomp missing)"; exit 2; }
LINES=$(grep -n "#pragma omp parallel" "$SRC" | cut -d: -f1 | tr '\n' ' ')
cd "$WORK"
OMP_NUM_THREADS=2 "$NUNATAK" run -o "$WORK/run" -- ./omp_two_regions 40000000 "$WORK/truth.txt" > out.txt 2> err.txt </dev/null ||
	fail "nunatak run"
grep -q "omp_two_regions done" out.txt || fail "the application's output"
[ "$(wc -l < truth.txt)" = 2 ] || fail "the program did not write its own times"
grep -q "OpenMP (libgomp): thread [01] waits [0-9.]*% of region \`omp_two_regions.c:[0-9]*\` at its barrier (of its time in the region, wall clock; 2 regions, 2 threads; " err.txt ||
	fail "the summary's OpenMP line is missing or does not count 2 regions"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
ROOT=$([ "$(id -u)" = 0 ] && echo 1 || echo 0)
rc=0
python3 - "$ROOT" $LINES <<'PY' || rc=$?
import json, sys
root, lines = sys.argv[1] == "1", [int(x) for x in sys.argv[2:4]]
rep = json.load(open("rep.json"))
root = root and "offcpu-unattributed" not in [d["name"] for d in rep["degradations"]]
o = rep["openmp"]
assert o and o["runtime"] == "libgomp", o
regs = {r["name"]: r for r in o["regions"]}
assert sorted(regs) == ["main._omp_fn.0", "main._omp_fn.1"], sorted(regs)
truth = [[float(x) * 1e9 for x in l.split()] for l in open("truth.txt")]
checked = 0
for i, name in enumerate(["main._omp_fn.0", "main._omp_fn.1"]):
    r = regs[name]
    assert r["file"].endswith("omp_two_regions.c") and r["line"] == lines[i] and r["line_is_pragma"], (name, r["file"], r["line"], lines)
    th = {t["thread"]: t for t in r["threads"]}
    assert sorted(th) == [0, 1], (name, th)
    # libgomp's worker keeps the comm it got from the main thread (15 bytes at most)
    assert all(t["name"] == "omp_two_regions" for t in r["threads"]), (name, r["threads"])
    work0, work1, wait0, wait1 = truth[i]
    w = [th[k]["work_ns"]["value"] for k in (0, 1)]
    q = [th[k]["wait_ns"]["value"] for k in (0, 1)]
    print("%s: nunatak work %.0f / %.0f ms, wait %.0f / %.0f ms; the threads' own: work %.0f / %.0f, wait %.0f / %.0f"
          % (name, w[0] / 1e6, w[1] / 1e6, q[0] / 1e6, q[1] / 1e6, work0 / 1e6, work1 / 1e6, wait0 / 1e6, wait1 / 1e6))
    if not root:
        # work is CPU time only (samples): the loop counts order it, however
        # the load delayed either thread
        busy = 0 if i == 0 else 1
        assert w[busy] > w[1 - busy], (name, "the busier thread's CPU work", w)
        assert all(th[k]["wait_ns"]["quality"] == "estimated" and th[k]["wait_ns"]["reason"] for k in (0, 1)), th
        continue
    # work on the wall clock (samples + preempted there), as the threads timed it
    for k in (0, 1):
        assert abs(w[k] - truth[i][k]) <= 0.30 * truth[i][k] + 0.02e9, (name, "thread %d's work" % k, w[k], truth[i][k])
    # the thread that waited by its own clock; a load that made both wait leaves the region unchecked
    waits = (wait0, wait1)
    for k in (0, 1):
        if waits[k] > 2 * waits[1 - k] + 0.02e9:
            assert th[k]["wait_ns"]["quality"] == "estimated" and "deficit" in th[k]["wait_ns"]["reason"], th[k]
            # the region got its waiter's wait (before the split, all of it
            # went to the region where the thread worked most: the other one)
            assert q[k] >= 0.70 * waits[k] - 0.05e9, (name, "thread %d waits %.0f ms, it timed %.0f ms" % (k, q[k] / 1e6, waits[k] / 1e6))
            # and not much more: its little wait in the other region (which
            # the split cannot tell apart), libgomp starting and ending the
            # team, preempted there under load (unseen by its own clock: at
            # load 22 on 2 cores that came to 2 ms past a 100 ms margin)
            other = truth[1 - i][2 + k]
            assert q[k] <= 1.30 * waits[k] + other + 0.20e9, (name, "thread %d waits %.0f ms, it timed %.0f ms (+%.0f ms in the other region)" % (k, q[k] / 1e6, waits[k] / 1e6, other / 1e6))
            assert q[1 - k] <= waits[1 - k] + 0.25 * w[1 - k], (name, "thread %d hardly waits" % (1 - k), q, waits)
            checked += 1
if root and not checked:
    print("both threads waited in both regions by their own clocks: %s" % truth)
    sys.exit(3)
PY
[ "$rc" = 3 ] && { echo "skip: the load made both threads wait in both regions (above): no region to check the split on"; exit 2; }
[ "$rc" = 0 ] || fail "openmp payload"
