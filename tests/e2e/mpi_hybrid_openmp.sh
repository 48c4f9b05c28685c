#!/bin/bash
# Hybrid MPI + OpenMP (Open MPI, 2 ranks x 2 libomp threads, nunatak's OMPT tool, named by the rank shim on every node): in each rank thread 0 does 3x the work of thread 1, and rank 0 has twice rank 1's, so a rank waits in MPI_Barrier: the payload's openmp gives every (rank, thread) its work and barrier wait, and every rank its time in MPI, within 10% (+100 ms) of what the program timed itself; the summary has one line per rank telling the OpenMP wait of its threads from its wait in MPI; the ranks record their context switches: every rank's threads have a measured wall / CPU / off-CPU budget, and its OpenMP threads are the application's, never MPI runtime helpers
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v mpirun >/dev/null && command -v mpicc >/dev/null || { echo "skip: Open MPI (mpirun, mpicc) not installed"; exit 2; }
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 2; }
[ -e "$(dirname "$NUNATAK")/lib/libnunatak_ompt.so" ] ||
	{ echo "skip: nunatak was built without its OMPT tool (apt-get install libomp-dev, reconfigure)"; exit 2; }
OMPI_CC=clang mpicc -O1 -g -fno-omit-frame-pointer -fopenmp -o "$WORK/hybrid" \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/hybrid_imbalance.c" 2> "$WORK/cc.txt" ||
	{ echo "skip: mpicc with clang -fopenmp cannot build here (apt-get install libomp-dev)"; exit 2; }
LINE=$(grep -n "#pragma omp parallel" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/hybrid_imbalance.c" | cut -d: -f1)
cd "$WORK"
# -x ...=: the ranks get the launcher's environment without nunatak's OMPT
# variables, as on a remote node (Open MPI forwards only -x variables
# there): the rank shim names the tool itself (--ompt-lib)
OMP_NUM_THREADS=2 "$NUNATAK" run -o "$WORK/run" -- mpirun --oversubscribe --allow-run-as-root \
	-x OMP_TOOL_LIBRARIES= -x NUNATAK_OMPT_DIR= -n 2 \
	./hybrid 20000000 "$WORK/truth" > out.txt 2> err.txt </dev/null || fail "nunatak run"
[ "$(grep -c "hybrid_imbalance rank [01] done" out.txt)" = 2 ] || fail "the application's output"
grep -q "OpenMP (libomp, OMPT): rank 0: its threads wait [0-9.]*% of their time in region \`hybrid_imbalance.c:$LINE\`" err.txt ||
	fail "no per-rank OpenMP line for rank 0"
grep -q "OpenMP (libomp, OMPT): rank 1: its threads wait [0-9.]*% .*; the rank waits [0-9.]*% of its wall time in MPI" err.txt ||
	fail "no per-rank line for rank 1 with its MPI wait"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
python3 - "$LINE" "$NUNATAK_SOURCE_DIR/docs/schemas/report-payload.json" <<'PY' || fail "openmp payload"
import json, sys
line = int(sys.argv[1])
doc = json.load(open("rep.json"))
try:
    import jsonschema
    # flame nodes nest as deep as the sampled stacks (perf keeps 127 frames, a
    # frame-pointer chain that loops fills them all; the flame allows 512): Debian's
    # jsonschema 4.10 spends about 8 Python frames a level and passes the default
    # limit of 1000 from ~115 levels (RecursionError, seen as nobody at 129 levels)
    sys.setrecursionlimit(20000)
    jsonschema.validate(doc, json.load(open(sys.argv[2])))
except ImportError:
    pass
o = doc["openmp"]
assert o and o["runtime"] == "libomp", o
regs = o["regions"]
assert len(regs) == 1 and regs[0]["measured_by"] == "ompt" and regs[0]["line"] == line, regs
th = {(t["rank"], t["thread"]): t for t in regs[0]["threads"]}
assert sorted(th) == [(0, 0), (0, 1), (1, 0), (1, 1)], sorted(th)
for r in (0, 1):
    work0, work1, wait0, wait1, mpi = (float(x) * 1e9 for x in open("truth.%d" % r).read().split())
    w0, w1 = th[(r, 0)]["work_ns"]["value"], th[(r, 1)]["work_ns"]["value"]
    q0, q1 = th[(r, 0)]["wait_ns"]["value"], th[(r, 1)]["wait_ns"]["value"]
    print("rank %d: nunatak work %.0f / %.0f ms, wait %.0f / %.0f; the threads' own: %.0f / %.0f, %.0f / %.0f"
          % (r, w0 / 1e6, w1 / 1e6, q0 / 1e6, q1 / 1e6, work0 / 1e6, work1 / 1e6, wait0 / 1e6, wait1 / 1e6))
    assert abs(w0 - work0) <= 0.10 * work0 + 0.1e9, (r, "thread 0 work", w0, work0)
    assert abs(w1 - work1) <= 0.10 * work1 + 0.1e9, (r, "thread 1 work", w1, work1)
    assert abs(q1 - wait1) <= 0.10 * wait1 + 0.1e9, (r, "thread 1 wait", q1, wait1)
    assert q0 <= wait0 + 0.1e9, (r, "thread 0 hardly waits", q0, wait0)
ranks = {x["rank"]: x for x in o["ranks"]}
assert sorted(ranks) == [0, 1], o["ranks"]
for r, x in ranks.items():
    assert x["threads_wait_ns"]["quality"] == "measured" and x["threads_time_ns"]["value"] > 0, x
    # which rank waits in MPI is the load's to decide (rank 0's double work
    # on 2 busy cores may still end first): its own clock says
    mpi = float(open("truth.%d" % r).read().split()[4]) * 1e9
    m = x["mpi_time_ns"]
    assert m["quality"] == "measured" and abs(m["value"] - mpi) <= 0.10 * mpi + 0.1e9, (r, m, mpi)
    assert x["mpi_wall_ns"]["value"] >= m["value"], x
# the ranks recorded their context switches (rank-shim --offcpu): each
# OpenMP thread of each rank has its measured wall / CPU / off-CPU budget,
# unless a rank's perf refused them (then said in the degradations)
tb = doc["time_budget"]
refused = [d for d in doc["degradations"] if d["name"] == "offcpu-unattributed" and "refused" in d["message"]]
if not refused:
    assert tb["mechanism"] != "process", tb["mechanism"]
    loci = {(l["rank"], l["thread"]): l for l in tb["loci"]}
    for (r, t), row in th.items():
        l = loci[(r, row["tid"])]
        assert l["offcpu_ns"]["quality"] == "measured", l
        # thread 1 waited at the barrier (blocked or spinning): its off-CPU
        # time is at most its wall time, its wall at least its region time
        assert l["wall_ns"]["value"] + 1e6 >= row["work_ns"]["value"] + row["wait_ns"]["value"], (l, row)
        # an OpenMP thread is the application's, never an MPI runtime helper,
        # even one waiting at the barrier (analysis/threads.h)
        assert l["helper"] is False, ("OpenMP thread set aside as an MPI runtime helper", l)
    assert tb["application_threads"] >= 4, tb["application_threads"]
PY
