#!/bin/bash
# A counting rank (perf stat, beyond the sampling threshold) whose application dies by SIGSEGV: the rank dies by it too (perf stat alone exits 0 for a killed application) and rank.json says so, still counted; an exit status passes as it is
set -eu
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 2; }
perf stat -e task-clock -o /dev/null -- true 2>/dev/null || { echo "skip: perf cannot count here"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
shim() {
	rm -rf "$tmp/collect"
	mkdir "$tmp/collect"
	set +e
	env OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=100 OMPI_COMM_WORLD_LOCAL_RANK=5 \
		"$NUNATAK" rank-shim --directory "$tmp/collect" -- sh -c "$1" >out.txt 2>err.txt </dev/null
	rc=$?
	set -e
}
shim 'echo before-crash; kill -SEGV $$'
grep -q before-crash out.txt || { echo "FAIL: the application's output is lost"; cat out.txt err.txt; exit 1; }
[ "$rc" = 139 ] || { echo "FAIL: the counting rank exits $rc, the application died by SIGSEGV (139)"; cat err.txt; exit 1; }
python3 - "$tmp/collect/rank-5/rank.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["role"] == "counter" and r["counted"], r
assert r["term_signal"] == 11 and r["exit_code"] == 139, (r["term_signal"], r["exit_code"])
PY
shim 'exit 7'
[ "$rc" = 7 ] || { echo "FAIL: the counting rank exits $rc, the application 7"; cat err.txt; exit 1; }
python3 -c "import json,sys; r=json.load(open('$tmp/collect/rank-5/rank.json')); assert r['exit_code'] == 7 and r['term_signal'] == 0, r"
echo "ok: a counting rank keeps its application's signal and exit status"
