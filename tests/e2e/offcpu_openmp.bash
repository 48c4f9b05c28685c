# SPDX-License-Identifier: BSD-3-Clause
# Shared body of run_offcpu_openmp_gcc.sh and run_offcpu_openmp_clang.sh.
# Expects CC_OMP (the compiler), CC_OMP_REMEDY, OMP_RUNTIME (libgomp,
# libomp) and OMP_OUTLINED (the outlined function's name, or its start);
# OMP_MODE: ompt (nunatak's OMPT tool measures libomp: skips when the build
# has none) or frames (read from the samples' frames: libgomp, or libomp
# with a user's OMP_TOOL_LIBRARIES, which nunatak keeps).
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v "$CC_OMP" >/dev/null || { echo "skip: $CC_OMP not installed"; exit 2; }
SRC="$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/omp_imbalance.c"
"$CC_OMP" -O1 -g -fno-omit-frame-pointer -fopenmp -o "$WORK/omp_imbalance" "$SRC" 2> "$WORK/cc.txt" ||
	{ echo "skip: $CC_OMP -fopenmp cannot build here ($CC_OMP_REMEDY)"; exit 2; }
LINE=$(grep -n "#pragma omp parallel" "$SRC" | cut -d: -f1)
OMP_MODE=${OMP_MODE:-frames}
TAG="$OMP_RUNTIME"
if [ "$OMP_MODE" = ompt ]; then
	[ -e "$(dirname "$NUNATAK")/lib/libnunatak_ompt.so" ] ||
		{ echo "skip: nunatak was built without its OMPT tool (apt-get install libomp-dev, reconfigure)"; exit 2; }
	TAG="$OMP_RUNTIME, OMPT"
elif [ "$OMP_RUNTIME" = libomp ]; then
	# a tool of the user's own (here one libomp cannot load) is kept: no OMPT
	export OMP_TOOL_LIBRARIES="$WORK/users_tool.so"
fi
cd "$WORK"
OMP_NUM_THREADS=2 "$NUNATAK" run -o "$WORK/run" -- ./omp_imbalance 60000000 "$WORK/truth.txt" > out.txt 2> err.txt </dev/null ||
	fail "nunatak run"
grep -q "omp_imbalance done" out.txt || fail "the application's output"
if [ -n "${OMP_TOOL_LIBRARIES:-}" ]; then
	grep -q "OMP_TOOL_LIBRARIES is set: the user's OpenMP tool is kept: nunatak's OMPT tool is not added" err.txt ||
		fail "the user's OMP_TOOL_LIBRARIES was not announced as kept"
fi
ROOT=$([ "$(id -u)" = 0 ] && echo 1 || echo 0)
# OMPT, or root's switch stacks, measure the wait: thread 1 waits. From the
# frames as an ordinary user it is estimated from the runtime's spinning
# alone, which the runtime yields away on an oversubscribed machine (the
# waiting thread then shows hardly any): which thread heads the line is not
# the program's to decide there (issue 31: 1 run in 3 at load 17 as nobody
# named thread 0), only that the line is there, estimated, with its reason.
if [ "$OMP_MODE" = ompt ] || { [ "$ROOT" = 1 ] && ! grep -q "degraded \[offcpu-unattributed\]" err.txt; }; then
	# The thread that waits is the one the threads' own clocks say: thread 1
	# when both get the same share of the CPU; on a loaded machine thread 1
	# may get so little that thread 0 waits instead (seen in CI: work 0.280 /
	# 0.283 s, wait 5.2 / 0.2 ms). Close waits may go either way.
	WAITER=$(python3 -c 'import sys
w0, w1 = (float(x) for x in open(sys.argv[1]).read().split()[2:4])
print(1 if w1 > 2 * w0 + 0.01 else 0 if w0 > 2 * w1 + 0.01 else "[01]")' truth.txt)
	grep -q "OpenMP ($TAG): thread $WAITER waits [0-9.]*% of region \`omp_imbalance.c:$LINE\` at its barrier" err.txt ||
		fail "the summary's OpenMP line is missing, names another region or another thread than the one that waited (thread $WAITER by the threads' own clocks)"
else
	grep -q "OpenMP ($TAG): thread [01] waits [0-9.]*% of region \`omp_imbalance.c:$LINE\` at its barrier (.*estimated: " err.txt ||
		fail "the summary's OpenMP line is missing, names another region or is not said estimated"
fi
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
python3 - "$LINE" "$ROOT" "$OMP_RUNTIME" "$OMP_OUTLINED" "$OMP_MODE" <<'PY' || fail "openmp payload"
import json, sys
line, root = int(sys.argv[1]), sys.argv[2] == "1"
runtime, outlined, mode = sys.argv[3], sys.argv[4], sys.argv[5]
rep = json.load(open("rep.json"))
o = rep["openmp"]
# root records the switches' stacks unless perf refused them here (announced)
root = root and "offcpu-unattributed" not in [d["name"] for d in rep["degradations"]]
assert o and o["runtime"] == runtime, o
regs = o["regions"]
assert len(regs) == 1, regs
r = regs[0]
assert r["measured_by"] == mode, (r["measured_by"], mode)
# gcc names it exactly (main._omp_fn.0); clang numbers its .omp_outlined.
# copies; OMPT names the function that forks
if mode == "ompt":
    assert r["name"] == "main", r["name"]
else:
    assert (r["name"] == outlined if runtime == "libgomp" else r["name"].startswith(outlined)), r["name"]
assert r["file"].endswith("omp_imbalance.c") and r["line"] == line and r["line_is_pragma"], (r["file"], r["line"], line)
th = {t["thread"]: t for t in r["threads"]}
work0, work1, wait0, wait1 = (float(x) * 1e9 for x in open("truth.txt").read().split())
assert sorted(th) == [0, 1], th
w0, w1 = th[0]["work_ns"]["value"], th[1]["work_ns"]["value"]
q0, q1 = th[0]["wait_ns"]["value"], th[1]["wait_ns"]["value"]
print("nunatak: work %.0f / %.0f ms, wait %.0f / %.0f ms; the threads' own: work %.0f / %.0f, wait %.0f / %.0f"
      % (w0 / 1e6, w1 / 1e6, q0 / 1e6, q1 / 1e6, work0 / 1e6, work1 / 1e6, wait0 / 1e6, wait1 / 1e6))
if mode == "ompt":  # exact, root or not: the same clock as the threads' own
    assert th[0]["tid"] != th[1]["tid"], th
    assert all(t["wait_ns"]["quality"] == "measured" and t["work_ns"]["quality"] == "measured" for t in th.values()), th
    # (+100 ms: under load a thread preempted between its own clock and
    # the runtime's callback)
    assert abs(w0 - work0) <= 0.10 * work0 + 0.1e9, ("thread 0's work %.0f ms, it timed %.0f ms" % (w0 / 1e6, work0 / 1e6))
    assert abs(w1 - work1) <= 0.10 * work1 + 0.1e9, ("thread 1's work %.0f ms, it timed %.0f ms" % (w1 / 1e6, work1 / 1e6))
    assert abs(q1 - wait1) <= 0.10 * wait1 + 0.1e9, ("thread 1's wait %.0f ms, it timed %.0f ms" % (q1 / 1e6, wait1 / 1e6))
    assert q0 <= wait0 + 0.1e9, ("thread 0 hardly waits", q0, wait0)
elif root:
    assert th[1]["wait_ns"]["quality"] == "measured", th[1]
    assert abs(w0 - work0) <= 0.30 * work0, ("thread 0's work %.0f ms, it timed %.0f ms" % (w0 / 1e6, work0 / 1e6))
    # (+50 ms: libgomp starting and ending the team, preempted there under
    # load, is wait the threads' own clocks do not see)
    assert abs(q1 - wait1) <= 0.30 * wait1 + 0.05e9, ("thread 1's wait %.0f ms, it timed %.0f ms" % (q1 / 1e6, wait1 / 1e6))
    # thread 0 hardly waits (unless the load delayed thread 1's start so much
    # that thread 0 did wait: its own clock says so)
    assert q0 <= wait0 + 0.25 * w0, ("thread 0 hardly waits", q0, wait0, w0)
    if abs(wait1 - 2 / 3 * work0) <= 0.10 * 2 / 3 * work0:  # equal CPU shares: the 2/3 of the issue
        want = 2 / 3 * w0
        assert abs(q1 - want) <= 0.30 * want, ("thread 1 waits %.0f ms, 2/3 of thread 0's work is %.0f ms" % (q1 / 1e6, want / 1e6))
else:
    assert th[1]["wait_ns"]["quality"] == "estimated" and th[1]["wait_ns"]["reason"], th[1]
PY
