#!/bin/bash
# nunatak run over mpirun -n 2 on the instrumented mpi_imbalance: one trace per rank, one call of each region per rank, work_units samples inside "compute" on both ranks
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
cd "$WORK"
# MPI: the instrumented mpi_imbalance, one trace per rank, one call of each
# region per rank, work_units' samples inside "compute" on both ranks.
mpi_app="$NUNATAK_BUILD_DIR/examples/mpi/mpi_imbalance_regions"
if ! command -v mpirun > /dev/null || [ ! -x "$mpi_app" ]; then
	echo "skip: no mpirun or no mpicc (examples/mpi not built)"
	exit 2
fi
# Under ASan the example links the sanitizer runtime (through our library):
# Open MPI's own never-freed allocations are not ours to report.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
"$NUNATAK" run -o "$WORK/mrun" -- mpirun --oversubscribe --allow-run-as-root -n 2 "$mpi_app" 20 \
	> mout.txt 2> merr.txt || fail "MPI run failed"
ls "$WORK"/mrun/collect/regions/*_rank00000.spt "$WORK"/mrun/collect/regions/*_rank00001.spt \
	> /dev/null || fail "no per-rank traces"
grep -q "^.*  compute - .* 2 calls; busiest of 2 ranks at" merr.txt || fail "no per-rank regions line"
# Every rank sets the prefix itself: remote nodes do not get mpirun's environment.
grep -q "rank-shim .*--regions-name " merr.txt || fail "the rank launch does not pass --regions-name"
python3 - "$WORK/mrun" <<'PY' || fail "MPI assertions"
import os, sqlite3, sys
db = sqlite3.connect(os.path.join(sys.argv[1], "pivot.sqlite"))
rows = db.execute("select l.rank, r.path, r.calls, r.inclusive_ns from region_stats r join loci l on l.id = r.locus").fetchall()
assert sorted((r, p, c) for r, p, c, _ in rows) == [(r, p, 1) for r in (0, 1) for p in ("barrier", "compute", "reduce")], rows
comp = {r: i for r, p, c, i in rows if p == "compute"}
print(f"compute: rank 0 {comp[0]/1e6:.1f} ms, rank 1 {comp[1]/1e6:.1f} ms")
assert comp[0] > 0 and comp[1] > 0, comp  # no wall-clock ratio: a loaded machine breaks any threshold
for rank in (0, 1):
    by = dict(db.execute("select r.region_path, sum(r.sample_count) from region_samples r join hotspots h on h.id = r.hotspot join loci l on l.id = r.locus where h.name = 'work_units' and l.rank = ? group by 1", (rank,)).fetchall())
    total = sum(by.values())
    assert total > 0 and by.get("compute", 0) >= 0.9 * total, (rank, by)
# The outer region calls are Events beside the MPI calls (the report's timeline).
ev = db.execute("select l.rank, e.name, e.duration_ns from events e join loci l on l.id = e.locus where e.kind = 'region'").fetchall()
assert sorted((r, n) for r, n, _ in ev) == [(r, n) for r in (0, 1) for n in ("barrier", "compute", "reduce")], ev
assert {(r, d) for r, n, d in ev if n == "compute"} == {(r, i) for r, i in comp.items()}, (ev, comp)
PY
"$NUNATAK" report --json "$WORK/mrun" > mpayload.json 2>> merr.txt || fail "MPI report --json"
python3 - mpayload.json <<'PY' || fail "MPI timeline assertions"
import json, sys
t = json.load(open(sys.argv[1]))["ranks"]["mpi_timeline"]
regions = sorted((i[0], t["names"][i[1]]) for i in t["items"] if i[6] == 1)
assert t["regions_shown"] == 6 and regions == [(r, n) for r in (0, 1) for n in ("barrier", "compute", "reduce")], t
assert any(i[6] == 0 and t["names"][i[1]] == "MPI_Barrier" for i in t["items"]), t
PY
# A real MPI Run with regions: every number of its payload carries its Quality
# or is a documented raw count (issue 16), the rank rows and region times too,
# each time labelled with its clock.
python3 - mpayload.json <<'PY' || fail "numbers without Quality in the MPI Run's payload"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "tests/fixtures/run"))
import quality_walk
p = json.load(open(sys.argv[1]))
quality_walk.check(p, "report --json of an MPI Run with regions")
row = p["ranks"]["rows"][0]
assert row["time_ns"]["clock"] == "sampled CPU time" and row["app_ns"]["quality"] == "measured", row
assert row["mpi_fraction"]["clock"] == "wall clock", row["mpi_fraction"]
r = p["regions"][0]
assert r["inclusive_ns"]["clock"] == "wall clock" and r["inclusive_ns"]["value"] > 0, r
PY
grep -q "by inclusive wall-clock time" merr.txt || fail "region times not labelled wall clock in the summary"
