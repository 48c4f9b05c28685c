#!/usr/bin/env bash
# libscope_profiler's own .h5 carries counters per region (/rank<r>/perf_events, the test-only backend's known counts): inspect and the counters export of the library's .h5 equal those of its .spt, an unavailable event keeps its reason, and `regions convert` of that .h5 keeps them
set -eu
B=${NUNATAK_BUILD_DIR:?}
SP=${SCOPE_PROFILER_BIN:?}
N=${NUNATAK:?}
P="$B/tests/programs/ctr_roofline_prog"
[ -f "$B/lib/libscope_profiler_h5.so" ] || { echo "skip: built without HDF5 (SP_USE_HDF5=OFF or libhdf5-dev missing)"; exit 2; }
command -v h5dump >/dev/null || { echo "skip: no h5dump (hdf5-tools, scripts/deps.sh test)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SCOPE_PROFILER_HDF5 SCOPE_PROFILER_DISABLE SCOPE_PROFILER_SAMPLE_HZ SP_LOG_LEVEL || true
mkdir "$tmp/t" "$tmp/spt" "$tmp/h5"
# cycles goes to the perf_event backend while the group is on test: unavailable, with the reason
SCOPE_PROFILER_PREFIX="$tmp/t/p" SCOPE_PROFILER_EVENTS=test::FLOP,cycles,test::DRAM_BYTES "$P" \
	</dev/null >"$tmp/out.txt" 2>"$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
[ -f "$tmp/t/p_rank00000.h5" ] || { cat "$tmp/err.txt"; echo "FAIL: no .h5 written"; exit 1; }
cp "$tmp/t/p_rank00000.spt" "$tmp/spt/"
cp "$tmp/t/p_rank00000.h5" "$tmp/h5/"
h5dump -g /rank0/perf_events "$tmp/h5/p_rank00000.h5" >"$tmp/dump.txt"
grep -q '"test::DRAM_BYTES"' "$tmp/dump.txt" || { cat "$tmp/dump.txt"; echo "FAIL: no events in the .h5"; exit 1; }
"$SP" inspect "$tmp/spt" --json </dev/null >"$tmp/spt.json"
"$SP" inspect "$tmp/h5" --json </dev/null >"$tmp/h5.json"
"$N" regions convert "$tmp/h5" -o "$tmp/conv.h5" </dev/null >/dev/null 2>"$tmp/conv.err" || { cat "$tmp/conv.err"; exit 1; }
"$SP" inspect "$tmp/conv.h5" --json </dev/null >"$tmp/conv.json"
csv() { "$N" regions export "$1" --table counters --format csv -o - </dev/null; }
csv "$tmp/spt" >"$tmp/spt.csv"
csv "$tmp/h5" >"$tmp/h5.csv"
cmp "$tmp/spt.csv" "$tmp/h5.csv" || { diff "$tmp/spt.csv" "$tmp/h5.csv"; echo "FAIL: exports differ"; exit 1; }
python3 - "$tmp/spt.json" "$tmp/h5.json" "$tmp/conv.json" <<'PY'
import json, sys
a, b, c = (json.load(open(p))["counters"] for p in sys.argv[1:4])
for x in (a, b, c):  # the .h5's region order is its link order
    x["regions"].sort(key=lambda r: r["name"])
# each call's counts are in the .spt only (its CCAL section): an .h5 says
# none (null), never a spread it does not hold; the sums are the same
assert a["ranks_with_call_counts"] == 1 and b["ranks_with_call_counts"] == c["ranks_with_call_counts"] == 0
for x in (a, b, c):
    del x["ranks_with_call_counts"]
    for reg in x["regions"]:
        for name, ev in reg["events"].items():
            sp = ev.pop("call_spread")
            if x is a and name != "cycles":
                assert sp["calls"] == ev["calls"] and sp["min"] * ev["calls"] <= ev["inclusive"]["value"], (reg["name"], sp)
            else:
                assert sp is None, (reg["name"], name, sp)
assert a == b, ("library .h5", a, b)
assert a == c, ("converted .h5", a, c)
assert a["backend"] == "test" and a["test_backend"], a
r = {x["name"]: x for x in a["regions"]}
# ctr_roofline_prog's known counts (tests/programs/ctr_test/)
assert r["dgemm"]["events"]["test::FLOP"]["inclusive"]["value"] == 6e9, r["dgemm"]
assert r["dgemm"]["events"]["test::DRAM_BYTES"]["inclusive"]["value"] == 5e7, r["dgemm"]
cyc = r["dgemm"]["events"]["cycles"]["inclusive"]
assert cyc["value"] is None and "one backend per group" in cyc["reason"], cyc
print("ok", sorted(r))
PY
