#!/bin/bash
# scope-profiler export writes to stdout without -o (and with -o -): one pipeable document, nothing else on stdout
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to parse JSON"; exit 2; }
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$heat" ] || fail "examples/c not built ($heat)"
SCOPE_PROFILER_HDF5=0 SCOPE_PROFILER_PREFIX="$tmp/t/heat" "$heat" 32 20 0 > /dev/null
for o in "" "-o -"; do
	# shellcheck disable=SC2086
	"$SCOPE_PROFILER_BIN" export "$tmp/t" -f speedscope $o 2> "$tmp/err" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["profiles"], d' ||
		fail "export -f speedscope ${o:-(no -o)} is not one JSON document on stdout: $(cat "$tmp/err")"
	# shellcheck disable=SC2086
	"$SCOPE_PROFILER_BIN" export "$tmp/t" -f collapsed $o > "$tmp/c.txt"
	grep -q "^rank 0;timestep;solve;sweep [0-9]*$" "$tmp/c.txt" || fail "collapsed ${o:-(no -o)}"
done
echo ok
