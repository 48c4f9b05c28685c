#!/usr/bin/env bash
# MPI run whose application is missing on the ranks: declared as rank-app-missing with a path remedy, never as "install perf"
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun (Open MPI) is not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # harmless when not root
rc=0
"$NUNATAK" run -q --json -o run -- mpirun --oversubscribe -n 2 ./no-such-solver >out.json 2>err.txt ||
	rc=$?
[ "$rc" != 0 ] || fail "a missing application exited 0"
[ -f run/manifest.json ] || fail "no Run was written: $(cat err.txt)"
grep -q "degraded \[rank-app-missing\]: \`./no-such-solver\` was not found on .*(on 2 ranks: 0-1) - check the application's path" err.txt ||
	fail "rank-app-missing not declared: $(grep degraded err.txt)"
! grep -q "ranks-uncounted" err.txt || fail "blamed perf for ranks that never started: $(grep ranks-uncounted err.txt)"
grep -q '"rank-app-missing"' run/manifest.json || fail "rank-app-missing not in the manifest"
echo ok
