#!/bin/bash
# MPI time measured in a Fortran program (use mpi): Open MPI's Fortran bindings bypass the C wrappers, so the Fortran ones must catch MPI_Barrier, at the right .f90 line, and MPI_Send's exact bytes
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
command -v mpif90 >/dev/null || { echo "skip: mpif90 is not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_wait.f90"
mpif90 -g -O1 -o "$tmp/mpi_wait_f" "$src"
line=$(grep -n 'BARRIER_LINE' "$src" | cut -d: -f1)
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
"$NUNATAK" run -o "$tmp/run" -- mpirun "${flags[@]}" -n 2 "$tmp/mpi_wait_f" 300 \
	>"$tmp/out" 2>"$tmp/err" || { echo "nunatak run failed"; cat "$tmp/err"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/payload.json"
python3 - "$tmp/payload.json" "$tmp/out" "$line" <<'PY'
import json, re, sys
own = {int(r): int(ns) for r, ns in re.findall(r"rank (\d+) barrier_ns (\d+)", open(sys.argv[2]).read())}
rows = {r["rank"]: r for r in json.load(open(sys.argv[1]))["ranks"]["rows"]}
b1 = [c for c in rows[1]["mpi_calls"] if c["name"] == "MPI_Barrier"]
assert b1, rows[1]["mpi_calls"]
b1 = b1[0]
rel = abs(b1["time_ns"]["value"] - own[1]) / own[1]
print(f"rank 1 MPI_Barrier (Fortran): interposed {b1['time_ns']['value']} ns, program {own[1]} ns ({100*rel:.2f}% apart)")
assert rel <= 0.10, rel
site = b1["sites"][0]
assert site["file"].endswith("mpi_wait.f90") and site["line"] == int(sys.argv[3]), site
send = [c for c in rows[0]["mpi_calls"] if c["name"] == "MPI_Send"][0]
assert send["bytes"] == 1000 and send["calls"] == 1, send
PY
echo ok
