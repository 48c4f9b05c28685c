#!/bin/bash
# rank-shim whose perf is killed (SIGKILL) while the rank's application runs: the application carries on, the rank exits with the application's own status after it finished, and rank.json names the interruption
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
cd "$tmp"
set +e
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	"$NUNATAK" rank-shim --directory "$tmp/collect" \
	--perf "$NUNATAK_SOURCE_DIR/tests/fixtures/faults/perf_killed.sh" \
	-- sh -c 'sleep 1; echo finished > finished; exit 5' > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" -eq 5 ] || { cat err.txt; echo "FAIL: rank exit $rc, expected the application's 5"; exit 1; }
[ -e finished ] || { echo "FAIL: the rank returned before its application finished"; exit 1; }
# ...and the rank's record says its collection was cut short, naming the signal
python3 - "$tmp/collect/rank-0/rank.json" <<'PY' || { cat err.txt; echo "FAIL: rank.json does not say perf was killed"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
d = [x for x in r["degradations"] if x["name"] == "rank-collection-interrupted"]
assert d and "SIGKILL" in d[0]["message"], r["degradations"]
PY
echo "ok: perf killed inside a rank, the application's status passes, rank.json says so"
