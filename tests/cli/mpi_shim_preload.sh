#!/bin/bash
# rank-shim --mpi-profile composes LD_PRELOAD for the application only: nunatak's MPI library first, then --preload, then the user's own; NUNATAK_MPI_PROFILE names the rank's file; rank.json records it
set -eu
command -v cc >/dev/null || { echo "skip: no C compiler to build the stand-in libraries"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
echo 'int nunatak_stand_in;' >"$tmp/x.c"
for l in mpi sampler user; do cc -shared -fPIC -o "$tmp/lib$l.so" "$tmp/x.c"; done
env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	LD_PRELOAD="$tmp/libuser.so" PATH="/nonexistent:$PATH" \
	"$NUNATAK" rank-shim --directory "$tmp/collect" --perf /nonexistent/perf \
	--mpi-profile "$tmp/libmpi.so" --preload "$tmp/libsampler.so" -- \
	sh -c 'echo "$LD_PRELOAD"; echo "$NUNATAK_MPI_PROFILE"' >"$tmp/out" 2>"$tmp/err"
want="$tmp/libmpi.so:$tmp/libsampler.so:$tmp/libuser.so
$tmp/collect/rank-1/mpi-profile.txt"
[ "$(cat "$tmp/out")" = "$want" ] || { echo "application environment:"; cat "$tmp/out" "$tmp/err"; exit 1; }
python3 - "$tmp/collect/rank-1/rank.json" "$tmp/libmpi.so" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["mpi_profile"] == sys.argv[2], j
PY
# Without --mpi-profile nothing of it reaches the application.
env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 "$NUNATAK" rank-shim --directory "$tmp/collect" \
	--perf /nonexistent/perf -- sh -c 'echo "[$LD_PRELOAD][$NUNATAK_MPI_PROFILE]"' >"$tmp/out2"
[ "$(cat "$tmp/out2")" = "[][]" ] || { echo "leaked: $(cat "$tmp/out2")"; exit 1; }
echo ok
