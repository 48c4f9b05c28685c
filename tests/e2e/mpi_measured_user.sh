#!/bin/bash
# MPI time measured by interposition when not root (Open MPI without --allow-run-as-root): run as `nobody` when the suite runs as root, as the current user otherwise; barrier time and exact bytes in the payload
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
command -v mpicc >/dev/null || { echo "skip: mpicc is not installed"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/other_user.sh"
other_user_setup
cp "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_wait.c" "$home/"
[ ${#as[@]} -eq 0 ] || chown -R nobody "$home"
cat >"$home/job.sh" <<SH
set -eu
export HOME="$home" XDG_CACHE_HOME="$home/cache"
cd "$home"
mpicc -g -O1 -o mpi_wait mpi_wait.c
"$NUNATAK" run -o "$home/run" -- mpirun --oversubscribe -n 2 ./mpi_wait 200 >out 2>err
"$NUNATAK" report --json "$home/run" >payload.json
SH
"${as[@]}" bash "$home/job.sh" || { echo "the run as $("${as[@]}" id -un) failed"; cat "$home/err" 2>/dev/null; exit 1; }
grep -q "rank 1 waits [0-9]*% of its time in \`MPI_Barrier\`" "$home/err" || { cat "$home/err"; exit 1; }
python3 - "$home/payload.json" "$home/out" <<'PY'
import json, re, sys
own = {int(r): int(ns) for r, ns in re.findall(r"^rank (\d+) barrier_ns (\d+)$", open(sys.argv[2]).read(), re.M)}
rows = {r["rank"]: r for r in json.load(open(sys.argv[1]))["ranks"]["rows"]}
b1 = [c for c in rows[1]["mpi_calls"] if c["name"] == "MPI_Barrier"][0]
assert abs(b1["time_ns"]["value"] - own[1]) / own[1] <= 0.10, (b1, own)
send = [c for c in rows[0]["mpi_calls"] if c["name"] == "MPI_Send"][0]
assert send["bytes"] == 1056 and rows[0]["mpi"]["quality"] == "measured", rows[0]
PY
echo "ok (as $("${as[@]}" id -un))"
