#!/usr/bin/env bash
# a verb whose stdout cannot be written (/dev/full) says so on stderr and fails, never exits 0
set -eu
[ -w /dev/full ] || { echo "skip: /dev/full is not available on this machine"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

rc=0
"$NUNATAK" help >/dev/full 2>"$tmp/err" </dev/null || rc=$?
[ "$rc" != 0 ] || fail "nunatak help >/dev/full exited 0"
grep -q "could not write to standard output" "$tmp/err" || fail "no error on stderr: $(cat "$tmp/err")"

# The same verb to a writable stdout still succeeds (the check is not a false alarm).
"$NUNATAK" help >"$tmp/out" 2>"$tmp/err" </dev/null || fail "nunatak help failed: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || fail "nunatak help wrote nothing"
echo ok
