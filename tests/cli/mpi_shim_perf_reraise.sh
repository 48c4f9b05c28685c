#!/bin/bash
# rank-shim whose application dies by SIGSEGV leaving a process behind (as an Open MPI singleton leaves its orted), perf re-raising the signal after finishing perf.data: the rank dies by the application's signal, and nothing blames perf
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
cd "$tmp"
set +e
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	"$NUNATAK" rank-shim --directory "$tmp/collect" \
	--perf "$NUNATAK_SOURCE_DIR/tests/fixtures/faults/perf_reraise.sh" \
	-- sh -c '(sleep 1; echo left > left) & echo before-crash; kill -SEGV $$' > out.txt 2> err.txt </dev/null
rc=$?
set -e
grep -q before-crash out.txt || { echo "FAIL: the application's output is lost"; cat out.txt err.txt; exit 1; }
[ "$rc" -eq 139 ] || { cat err.txt; echo "FAIL: rank exit $rc, expected 139 (the application's SIGSEGV)"; exit 1; }
python3 - "$tmp/collect/rank-0/rank.json" <<'PY' || { cat err.txt; echo "FAIL: rank.json blames perf or loses the signal"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["term_signal"] == 11 and r["exit_code"] == 139, (r["term_signal"], r["exit_code"])
assert not [x for x in r["degradations"] if x["name"] == "rank-collection-interrupted"], r["degradations"]
PY
echo "ok: the application's SIGSEGV passes through the rank, perf is not blamed"
