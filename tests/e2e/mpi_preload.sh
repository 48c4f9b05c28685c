#!/bin/bash
# MPI where perf cannot sample: `nunatak run -- mpirun -n 2` with perf refusing (paranoid=3 stand-in) samples every rank through the preload sampler (rank.json role preload, its .sps), both functions of the 70/30 program named per rank within 10 points; a bare rank-shim does the same
set -eu
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# As tests/e2e/lib_sampling.sh: an ASan-built libscope_profiler.so cannot be
	# preloaded into a plain program; the gcc pass runs this test.
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g "$NUNATAK_SOURCE_DIR/tests/fixtures/attrib/two_funcs.c" -o "$tmp/two_funcs"
lib="$NUNATAK_BUILD_DIR/lib/libscope_profiler.so"
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }

# The shim alone, in a rank whose PATH has no perf: sampled by the stand-in.
mkdir "$tmp/collect" "$tmp/bin"
ln -s "$tmp/two_funcs" "$tmp/bin/two_funcs"
env -i PATH="$tmp/bin" HOME="$tmp" OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 \
	OMPI_COMM_WORLD_LOCAL_RANK=1 "$NUNATAK" rank-shim --directory "$tmp/collect" \
	--sampler-lib "$lib" -- two_funcs 100000000 >"$tmp/shim.out" 2>"$tmp/shim.err" || {
	cat "$tmp/shim.err"; echo "FAIL: rank-shim exited non-zero"; exit 1; }
[ "$(wc -l <"$tmp/shim.out")" -eq 1 ] || { echo "FAIL: application output changed"; exit 1; }
python3 - "$tmp/collect" <<'PY'
import json, os, sys
c = sys.argv[1]
j = json.load(open(c + "/rank-1/rank.json"))
assert j["role"] == "preload" and j["sampled"], j
assert j["sps"] == "rank-1/preload_rank00001.sps", j
assert os.path.getsize(os.path.join(c, j["sps"])) > 64, "empty .sps"
names = [d["name"] for d in j["degradations"]]
assert names == ["rank-perf-missing"], names
assert "preload sampler instead" in j["degradations"][0]["message"], j
PY

# The whole Run: mpirun fans out shims; every rank's perf refuses to record
# as perf_event_paranoid=3 makes it.
mkdir "$tmp/cwd"
cd "$tmp/cwd"
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/collect/perf_paranoid3.sh" >nunatak.toml
"$NUNATAK" run --json -o "$tmp/run" -- mpirun --oversubscribe --allow-run-as-root -n 2 \
	"$tmp/two_funcs" 300000000 >"$tmp/run.out" 2>"$tmp/run.err" || {
	cat "$tmp/run.err"; echo "FAIL: nunatak run failed"; exit 1; }
python3 - "$tmp/run" <<'PY'
import json, sqlite3, sys
run = sys.argv[1]
db = sqlite3.connect(run + "/pivot.sqlite")
rows = db.execute("""select l.rank, h.name, sum(m.value) from measurements m
    join hotspots h on h.id = m.hotspot join loci l on l.id = m.locus
    where m.counter = 'task-clock' group by l.rank, h.name""").fetchall()
per = {}
for rank, name, v in rows:
    per.setdefault(rank, {})[name] = v
assert sorted(per) == [0, 1], per
for rank, fns in per.items():
    tot = sum(fns.values())
    for fn, want in (("heavy_seventy", 0.7), ("light_thirty", 0.3)):
        got = fns.get(fn, 0) / tot
        assert abs(got - want) <= 0.10, (rank, fn, got)
    print(f"rank {rank}: heavy {fns['heavy_seventy'] / tot:.3f}")
for r in (0, 1):
    j = json.load(open(f"{run}/collect/rank-{r}/rank.json"))
    assert j["role"] == "preload", j
    assert [d["name"] for d in j["degradations"]] == ["rank-sampling-rejected"], j
PY
echo ok
