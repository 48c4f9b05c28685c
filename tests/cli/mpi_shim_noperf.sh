#!/bin/bash
# rank-shim in a rank without perf (PATH without perf): the application runs bare, once, and rank.json says why
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect" "$tmp/bin"
ln -s "$(command -v sh)" "$tmp/bin/sh" # a PATH that holds sh and no perf
set +e
env -i PATH="$tmp/bin" HOME="$tmp" OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=4 \
	OMPI_COMM_WORLD_LOCAL_RANK=0 "$NUNATAK" rank-shim --directory "$tmp/collect" -- \
	sh -c "echo ran >>'$tmp/runs'; echo out; echo err >&2; exit 3" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 3 ] || { echo "exit code $rc, expected 3"; exit 1; }
[ "$(cat "$tmp/out")" = "out" ] && [ "$(cat "$tmp/err")" = "err" ] || {
	echo "output changed"; cat "$tmp/out" "$tmp/err"; exit 1; }
[ "$(wc -l <"$tmp/runs")" -eq 1 ] || { echo "application ran $(wc -l <"$tmp/runs") times"; exit 1; }
j="$tmp/collect/rank-2/rank.json"
[ -f "$j" ] || { echo "no rank.json"; exit 1; }
python3 - "$j" <<'PY'
import json, socket, sys
j = json.load(open(sys.argv[1]))
assert j["rank"] == 2 and j["world_size"] == 4 and j["local_rank"] == 0, j
assert j["role"] == "bare" and not j["sampled"] and not j["counted"], j
assert j["perf"] is None and j["exit_code"] == 3, j
assert j["node"] == socket.gethostname(), j
names = [d["name"] for d in j["degradations"]]
assert names == ["rank-perf-missing"], names
assert "rank 2" in j["degradations"][0]["message"], j
PY
echo ok
