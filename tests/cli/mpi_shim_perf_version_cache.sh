#!/bin/bash
# rank-shim asks `perf --version` (rank.json's perf_version) once per perf: a second rank with the same perf answers from the tools' cache (no perf process after the application, issue 27), and a changed perf (another file identity) is asked again and its new version recorded
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# A perf stand-in that logs every call and refuses all but --version: the
# rank then runs bare, and the shim still records the perf version.
cat > perf <<'SH'
#!/bin/sh
echo "$*" >> "$(dirname "$0")/perf.log"
case "$1" in
--version) echo "perf version 6.1.0"; exit 0 ;;
*) echo "perf stand-in: refused" >&2; exit 1 ;;
esac
SH
chmod +x perf
: > perf.log

rank() { # rank N: one rank-shim run into collect-N; prints rank.json's perf_version
	mkdir "collect-$1"
	env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 \
		OMPI_COMM_WORLD_LOCAL_RANK=0 "$NUNATAK" rank-shim --directory "$tmp/collect-$1" \
		--perf "$tmp/perf" -- sh -c 'exit 3' > "out-$1.txt" 2> "err-$1.txt" </dev/null &&
		{ echo "FAIL: rank $1 exit 0, expected the application's 3"; exit 1; }
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["perf_version"])' \
		"collect-$1/rank-0/rank.json"
}
asked() { grep -c -- '--version' perf.log || true; }

v=$(rank 1)
[ "$v" = "6.1.0" ] || { cat err-1.txt; echo "FAIL: first rank's perf_version '$v'"; exit 1; }
[ "$(asked)" = 1 ] || { cat perf.log; echo "FAIL: the first rank asked perf --version $(asked) times"; exit 1; }
[ -d "$tmp/.cache/nunatak/exec" ] || { echo "FAIL: no tools' cache under \$HOME/.cache"; exit 1; }

v=$(rank 2)
[ "$v" = "6.1.0" ] || { cat err-2.txt; echo "FAIL: second rank's perf_version '$v' (from the cache)"; exit 1; }
[ "$(asked)" = 1 ] || { cat perf.log; echo "FAIL: the second rank started perf --version again"; exit 1; }

# Another perf at the same path (an upgrade): its identity differs, so the
# cache misses and the new version is recorded.
sed -i 's/6\.1\.0/6.12.3/' perf
v=$(rank 3)
[ "$v" = "6.12.3" ] || { cat err-3.txt; echo "FAIL: a changed perf's version '$v' (stale cache?)"; exit 1; }
[ "$(asked)" = 2 ] || { cat perf.log; echo "FAIL: a changed perf was not asked again"; exit 1; }
echo "ok: perf --version asked once per perf identity, cached between ranks"
