#!/bin/bash
# Counting-only ranks (Open MPI, 2 ranks, rank_threshold 1: rank 1 is counted by perf stat, rank 0 sampled): the payload's time_budget.counted_ranks gives rank 1 its wall time (perf stat duration_time) and CPU time (task-clock), measured, against what the rank timed itself (wall from main to after MPI_Finalize, getrusage), and its off-CPU time estimated, with no per-thread figure and the reason why (threads null, threads_reason); the summary has a line for it; rank 0's threads keep their per-thread budget and rank 1 has none there
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v mpirun >/dev/null && command -v mpicc >/dev/null || { echo "skip: Open MPI (mpirun, mpicc) not installed"; exit 2; }
mpicc -O1 -g -fno-omit-frame-pointer -o "$WORK/mpi_sleeper" \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/mpi_sleeper.c" 2> "$WORK/cc.txt" || fail "mpicc"
cd "$WORK"
printf '[sampling]\nrank_threshold = 1\n' > site.toml
NUNATAK_SITE_CONFIG="$WORK/site.toml" "$NUNATAK" run -o "$WORK/run" --no-calibrate -- \
	mpirun --oversubscribe --allow-run-as-root -n 2 ./mpi_sleeper "$WORK/truth" > out.txt 2> err.txt </dev/null ||
	fail "nunatak run"
[ "$(grep -c "mpi_sleeper rank [01] done" out.txt)" = 2 ] || fail "the application's output"
[ -s truth.1 ] || fail "rank 1 did not write its own times"
grep -q "time of the 1 counting-only rank (perf stat): per rank, not per thread (" err.txt ||
	fail "the summary does not say the counting-only rank's time is per rank only, and why"
grep -q "^.* rank 1: wall [0-9.e+-]* s; on CPU [0-9.e+-]* s (.*% of wall time), off CPU [0-9.e+-]* s (estimated" err.txt ||
	fail "the summary has no time line for rank 1"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
python3 - "$NUNATAK_SOURCE_DIR/docs/schemas/report-payload.json" <<'PY' || fail "counted rank's time"
import json, sys
doc = json.load(open("rep.json"))
try:
    import jsonschema
    jsonschema.validate(doc, json.load(open(sys.argv[1])))
except ImportError:
    pass
tb = doc["time_budget"]
rows = tb["counted_ranks"]
assert [r["rank"] for r in rows] == [1], rows
r = rows[0]
assert r["threads"] is None and "per thread" in r["threads_reason"], r
wall, cpu = (float(x) * 1e9 for x in open("truth.1").read().split())
w, c, o = r["wall_ns"], r["cpu_ns"], r["offcpu_ns"]
print("rank 1: nunatak wall %.3f s, CPU %.3f s, off %.3f s; its own wall %.3f s, CPU %.3f s"
      % (w["value"] / 1e9, c["value"] / 1e9, (o["value"] or 0) / 1e9, wall / 1e9, cpu / 1e9))
assert w["quality"] == "measured" and c["quality"] == "measured", (w, c)
# perf stat's duration also holds the rank's exec and the relay before main
assert wall - 0.02e9 <= w["value"] <= 1.10 * wall + 0.5e9, ("wall", w["value"], wall)
# task-clock counts every thread of the rank, as getrusage does (+ the relay's own)
assert abs(c["value"] - cpu) <= 0.10 * cpu + 0.05e9, ("cpu", c["value"], cpu)
assert o["quality"] == "estimated" and o["reason"], o
assert abs(o["value"] - (wall - cpu)) <= 0.10 * (wall - cpu) + 0.5e9, ("off", o["value"], wall - cpu)
# rank 0 sampled: per-thread rows (where its perf recorded the switches);
# rank 1 has none there
assert all(l["rank"] == 0 for l in tb["loci"]), tb["loci"]
assert tb["loci"] or "call stacks" not in tb["mechanism"], tb
PY
