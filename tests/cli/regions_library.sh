#!/usr/bin/env bash
# regions on traces the real libscope_profiler writes (examples/c): v2/v3 .spt, its .h5 twin, .sps samples symbolized to heat.c lines
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
threads="$NUNATAK_BUILD_DIR/examples/c/example_threads"
[ -x "$heat" ] && [ -x "$threads" ] || fail "the C examples are not built ($heat, $threads)"
SCOPE_PROFILER_PREFIX="$tmp/heat" SCOPE_PROFILER_SAMPLE_HZ=1000 "$heat" >/dev/null
SCOPE_PROFILER_PREFIX="$tmp/thr" "$threads" >/dev/null
[ -f heat_rank00000.spt ] && [ -f thr_rank00000.spt ] || fail "the examples wrote no traces: $(ls)"

"$NUNATAK" regions inspect heat_rank00000.spt --columns region,calls >heat.txt
grep -qE "^timestep +2000$" heat.txt || fail "heat timesteps: $(cat heat.txt)"
grep -qE "^sweep +2000$" heat.txt || fail "heat sweeps"
# Threads: one lane per thread, and the workers' calls nest within each lane.
"$NUNATAK" regions tree thr_rank00000.spt --paths --json >thr.json
python3 - thr.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lanes = d["ranks"][0]["lanes"]
assert len(lanes) >= 2, lanes
workers = [l for l in lanes if any(n["path"] == "worker" for n in l["nodes"])]
assert workers and all(any(n["path"] == "worker > compute" for n in l["nodes"]) for l in workers)
PY
if [ -f heat_rank00000.h5 ]; then
	# The HDF5 twin holds the same calls; a directory with both is one rank.
	"$NUNATAK" regions inspect heat_rank00000.h5 --json >a.json
	"$NUNATAK" regions inspect heat_rank00000.spt --json >b.json
	python3 -c "
import json; a, b = (json.load(open(p)) for p in ('a.json', 'b.json'))
assert a['regions'] == b['regions'], 'h5 and spt disagree'"
	mkdir twin && cp heat_rank00000.spt heat_rank00000.h5 twin/
	"$NUNATAK" regions inspect twin --columns region,calls | grep -qE "^timestep +2000$" || fail "twin directory"
fi
if [ -f heat_rank00000.sps ]; then
	"$NUNATAK" regions lines heat_rank00000.sps --json >lines.json 2>err.txt || fail "lines: $(cat err.txt)"
	python3 - lines.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["samples"] > 0
files = {l["file"] for r in d["regions"] for l in r["lines"]}
assert any(f.endswith("heat.c") for f in files), files
PY
fi
echo ok
