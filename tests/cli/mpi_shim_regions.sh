#!/bin/bash
# rank-shim --regions-name: a rank's region trace lands in <collect>/regions/ with no SCOPE_PROFILER_PREFIX from the launcher (remote nodes)
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$heat" ] || { echo "skip: $heat not built"; exit 2; }
mkdir "$tmp/collect" "$tmp/cwd"
cd "$tmp/cwd"
# A remote node's rank: its identity from Open MPI, none of mpirun's own
# environment (no SCOPE_PROFILER_PREFIX); perf may be absent or refused, the
# application runs once whatever the rung.
set +e
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 \
	OMPI_COMM_WORLD_LOCAL_RANK=1 "$NUNATAK" rank-shim --directory "$tmp/collect" \
	--regions-name myrun -- "$heat" 16 5 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || { echo "exit code $rc"; cat "$tmp/err"; exit 1; }
grep -q "heat: n=16 iterations=5" "$tmp/out" || { echo "application output changed"; cat "$tmp/out"; exit 1; }
trace="$tmp/collect/regions/myrun_rank00003.spt"
[ -s "$trace" ] || { echo "no trace at $trace:"; find "$tmp" -name '*.spt'; exit 1; }
[ -z "$(find "$tmp/cwd" -name '*.spt')" ] || { echo "trace also written to the cwd"; exit 1; }
"$SCOPE_PROFILER_BIN" inspect "$trace" >"$tmp/inspect" 2>&1 || { cat "$tmp/inspect"; exit 1; }
grep -q timestep "$tmp/inspect" || { echo "trace lacks the regions:"; cat "$tmp/inspect"; exit 1; }
[ -f "$tmp/collect/rank-3/rank.json" ] || { echo "no rank.json"; exit 1; }
# Without --regions-name the shim leaves the variable alone (single-node
# launches get it from mpirun's environment).
rm -rf "$tmp/collect"/* "$tmp/cwd"/*
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 \
	SCOPE_PROFILER_PREFIX="$tmp/cwd/mine" "$NUNATAK" rank-shim --directory "$tmp/collect" \
	-- "$heat" 16 5 0 >/dev/null 2>&1
[ -s "$tmp/cwd/mine_rank00000.spt" ] || { echo "user's prefix not kept without --regions-name"; exit 1; }
[ ! -d "$tmp/collect/regions" ] || { echo "regions written without --regions-name"; exit 1; }
echo ok
