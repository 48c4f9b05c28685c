#!/usr/bin/env bash
# nunatak run over mpirun -n 2 with per-rank traces places each counted region per rank too (payload rank_points, summary "per rank" line): rank r counts (r+1) times the test backend's FLOP, so each rank's intensity and achieved rate are checked by hand against that rank's own time; the path's point sums both ranks
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
N=${NUNATAK:?}
P="$B/tests/programs/ctr_roofline_prog"
command -v mpirun >/dev/null || { echo "skip: no mpirun (scripts/deps.sh test installs Open MPI)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache" NUNATAK_NO_CALIBRATE=1 SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_PREFIX SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL || true
# perf's own work is not under test: the fake perf runs the program as is.
printf '[tools]\nperf = "%s"\n' "$S/tests/fixtures/run/fake_perf.sh" >nunatak.toml
mpi=(mpirun -n 2)
if mpirun --version 2>&1 </dev/null | grep -q "Open MPI"; then
	mpi=(mpirun --oversubscribe --allow-run-as-root -n 2)
fi
# Open MPI's own never-freed allocations are not ours to report under ASan.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" CTR_ROOFLINE_RANK_SCALE=1 \
SCOPE_PROFILER_EVENTS=test::FLOP,test::DRAM_BYTES "$N" run -o "$tmp/run" -- "${mpi[@]}" "$P" \
	</dev/null >out.txt 2>err.txt || { cat err.txt; exit 1; }
cat err.txt
[ "$(grep -c '^done$' out.txt)" = 2 ] || { cat out.txt; echo "FAIL: not two ranks"; exit 1; }
ls run/collect/regions/*_rank00000.spt run/collect/regions/*_rank00001.spt >/dev/null
grep -q "      per rank (2 placed): .*flop/s (rank [01]) to .*flop/s (rank [01]), at 0.25 to 0.5 flop/byte" err.txt ||
	{ echo "FAIL: no per-rank line for stream"; exit 1; }
"$N" report --json "$tmp/run" </dev/null >payload.json
python3 - payload.json <<'PY'
import json, sys
pl = json.load(open(sys.argv[1]))
r = {x["path"]: x for x in pl["regions"]}
for path, flop, byts in (("stream", 2e9, 8e9), ("dgemm", 6e9, 5e7)):
    x = r[path]
    # the path: both ranks' counts, over the longest Locus
    assert x["counts"] == {"flop": 3 * flop, "dram_bytes": 2 * byts}, x
    pts = x["rank_points"]
    assert [p["rank"] for p in pts] == [0, 1], pts
    for p in pts:
        f = flop * (p["rank"] + 1)
        assert p["counts"] == {"flop": f, "dram_bytes": byts}, p
        I, A = p["dram_intensity"], p["achieved"]
        assert I["value"] == f / byts and I["quality"] == "measured", I
        t = p["inclusive_ns"]["value"] / 1e9  # one Locus per rank: its own time
        assert abs(A["value"] - f / t) <= 1e-9 * A["value"], (A, t)
        assert A["lineage"] == ["region flop", "region inclusive_ns"], A
        for k in ("attainable", "envelope_fraction"):
            assert p[k]["value"] is None and p[k]["quality"] == "unavailable", p[k]
            assert "Ceiling" in p[k]["reason"], p[k]
        assert "share" not in p, p
    assert sum(p["inclusive_ns"]["value"] for p in pts) == x["inclusive_ns"]["value"], x
# a path with no counts gets no points; "mixed" is on two paths: not placed
for path in ("mixed", "outer > mixed"):
    assert "rank_points" not in r[path] and "achieved" not in r[path], r[path]
print("per rank:", {p: [(q["rank"], q["dram_intensity"]["value"]) for q in r[p]["rank_points"]]
                    for p in ("stream", "dgemm")})
PY
# the payload, rank_points included, against its schema
py=""
for c in python3 /usr/bin/python3; do
	if "$c" -c "import jsonschema" 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with jsonschema (python3-jsonschema, scripts/deps.sh test)"; exit 2; }
"$py" - payload.json "$S/docs/schemas/report-payload.json" <<'PY'
import json, sys, jsonschema
# flame nodes nest as deep as the sampled stacks (perf keeps 127 frames, a
# frame-pointer chain that loops fills them all; the flame allows 512): Debian's
# jsonschema 4.10 spends about 8 Python frames a level and passes the default
# limit of 1000 from ~115 levels (RecursionError, seen as nobody at 129 levels)
sys.setrecursionlimit(20000)
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(json.load(open(sys.argv[1])))
PY
echo ok
