#!/bin/bash
# rank-shim asks perf for build-ids in the MMAP2 records (--buildid-mmap, issue 27: perf's build-id pass after the application cost 0.07 s of CPU per rank); a perf that refuses it before launching (kernel < 5.12) gets a second call without it: the application runs once, the rank is sampled, nothing is degraded
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
cd "$tmp"
release=$(uname -r)
major=${release%%.*} rest=${release#*.}
minor=${rest%%[!0-9]*}
if [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -lt 12 ]; }; then
	echo "skip: kernel $release predates build-ids in MMAP2 records: the shim does not ask for them"
	exit 2
fi
set +e
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	"$NUNATAK" rank-shim --directory "$tmp/collect" \
	--perf "$NUNATAK_SOURCE_DIR/tests/fixtures/faults/perf_no_buildid_mmap.sh" \
	-- sh -c "echo ran >> '$tmp/runs'; echo out; exit 5" > out.txt 2> err.txt </dev/null
rc=$?
set -e
[ "$rc" -eq 5 ] || { cat err.txt; echo "FAIL: rank exit $rc, expected 5 (the application's)"; exit 1; }
[ "$(cat out.txt)" = out ] || { echo "FAIL: the application's output changed"; cat out.txt; exit 1; }
[ "$(wc -l < runs)" -eq 1 ] || { echo "FAIL: the application ran $(wc -l < runs) times"; exit 1; }
# the application's recordings (the shim's own `perf record -- true` probe aside)
grep "/rank-0/perf.data" collect/perf-calls.log > calls || true
[ "$(wc -l < calls)" -eq 2 ] || { echo "FAIL: perf record calls:"; cat collect/perf-calls.log; exit 1; }
head -1 calls | grep -q -- " --buildid-mmap" ||
	{ echo "FAIL: the first call did not ask for build-ids in MMAP2:"; cat collect/perf-calls.log; exit 1; }
if tail -1 calls | grep -q -- " --buildid-mmap"; then
	echo "FAIL: the second call asked again:"; cat collect/perf-calls.log; exit 1
fi
python3 - collect/rank-0/rank.json <<'PY' || { cat err.txt; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["role"] == "sampler" and r["sampled"], ("not sampled", r)
assert r["exit_code"] == 5, r
assert r["degradations"] == [], ("a refused option lost nothing", r["degradations"])
PY
echo "ok: --buildid-mmap asked first; refused, the rank is sampled by a second call without it"
