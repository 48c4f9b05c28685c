#!/bin/bash
# a perf of a version nunatak was never tested with (a fake 4.9.0) is a stated degradation (perf-version-untested) before the run, never accepted silently; 6.1 is not (issue 24)
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" > nunatak.toml
# A cache of its own per Run: nunatak caches a tool's --version answer.
FAKE_PERF_VERSION=4.9.0 XDG_CACHE_HOME="$tmp/cache-old" "$NUNATAK" run -o "$tmp/old" -- true >/dev/null 2>old.txt </dev/null ||
	{ cat old.txt; echo "FAIL: run with perf 4.9.0 exited $?"; exit 1; }
grep -q "degraded \[perf-version-untested\]: perf 4.9.0 is not a version nunatak was tested with (5.x, 6.x)" old.txt ||
	{ cat old.txt; echo "FAIL: perf 4.9.0 accepted silently"; exit 1; }
grep -q '"perf-version-untested"' "$tmp/old/manifest.json" ||
	{ echo "FAIL: the Run does not record the degradation"; exit 1; }
XDG_CACHE_HOME="$tmp/cache-new" "$NUNATAK" run -o "$tmp/new" -- true >/dev/null 2>new.txt </dev/null ||
	{ cat new.txt; echo "FAIL: run with perf 6.1.0 exited $?"; exit 1; }
! grep -q "perf-version-untested" new.txt || { cat new.txt; echo "FAIL: perf 6.1.0 flagged"; exit 1; }
echo ok
