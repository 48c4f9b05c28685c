#!/bin/bash
# rank-shim outside any MPI rank: runs the command untouched (stdout, stderr, exit code) and writes nothing
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
# No rank identity of any runtime in the environment.
set +e
env -i PATH="$PATH" HOME="$tmp" "$NUNATAK" rank-shim --directory "$tmp/collect" -- \
	sh -c 'echo to-stdout; echo to-stderr >&2; exit 7' >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 7 ] || { echo "exit code $rc, expected 7"; exit 1; }
[ "$(cat "$tmp/out")" = "to-stdout" ] || { echo "stdout changed:"; cat "$tmp/out"; exit 1; }
[ "$(cat "$tmp/err")" = "to-stderr" ] || { echo "stderr changed:"; cat "$tmp/err"; exit 1; }
[ -z "$(ls -A "$tmp/collect")" ] || { echo "wrote outside a rank:"; ls -R "$tmp/collect"; exit 1; }
# Usage errors are nunatak's own (125), never the application's.
set +e
"$NUNATAK" rank-shim -- true 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 125 ] && grep -q -- "--directory" "$tmp/err" || { echo "usage error not said ($rc)"; exit 1; }
"$NUNATAK" rank-shim --help | grep -q "rank-shim --directory DIR"
echo ok
