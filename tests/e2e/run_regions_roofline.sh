#!/usr/bin/env bash
# nunatak run places scope_profiler regions with counted FLOP and DRAM bytes (the test-only counter backend's known counts) on the roofline: DRAM intensity and achieved rate in the summary and the payload, checked by hand; a region on two call paths is not placed (counts are per region); without Ceilings attainable and envelope are unavailable with the reason, never zero
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
N=${NUNATAK:?}
P="$B/tests/programs/ctr_roofline_prog"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache" NUNATAK_NO_CALIBRATE=1 SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_PREFIX SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL || true
# perf's own work is not under test: the fake perf runs the program as is.
printf '[tools]\nperf = "%s"\n' "$S/tests/fixtures/run/fake_perf.sh" >nunatak.toml

SCOPE_PROFILER_EVENTS=test::FLOP,test::DRAM_BYTES "$N" run -o "$tmp/run" -- "$P" \
	</dev/null >out.txt 2>err.txt || { cat err.txt; exit 1; }
grep -q "^done$" out.txt
cat err.txt
grep -q "  stream - .* 1 call$" err.txt
grep -q "      on the roofline: .*flop/s at 0.25 flop/byte, not classified (measured, from scope_profiler counters)" err.txt
grep -q "      on the roofline: .*flop/s at 120 flop/byte" err.txt
"$N" report --json "$tmp/run" </dev/null >payload.json
python3 - payload.json <<'PY'
import json, sys
pl = json.load(open(sys.argv[1]))
r = {x["path"]: x for x in pl["regions"]}
for path, flop, byts in (("stream", 2e9, 8e9), ("dgemm", 6e9, 5e7), ("outer", 1e6, 1e6)):
    x = r[path]
    assert x["counts"] == {"flop": flop, "dram_bytes": byts}, x
    I, A = x["dram_intensity"], x["achieved"]
    assert I["value"] == flop / byts and I["quality"] == "measured", I
    # one Locus: the longest Locus's inclusive time is the region's
    t = x["inclusive_ns"]["value"] / 1e9
    assert abs(A["value"] - flop / t) <= 1e-9 * A["value"], (A, t)
    assert A["unit"] == "flop/s" and A["lineage"] == ["region flop", "region inclusive_ns"], A
    for k in ("attainable", "envelope_fraction"):
        assert x[k]["value"] is None and x[k]["quality"] == "unavailable", x[k]
        assert "Ceiling" in x[k]["reason"], x[k]
    assert x["classification"] is None and x["classification_reason"], x
    assert x["share"]["value"] is None and "timed, not sampled" in x["share"]["reason"], x
# "mixed" runs under main and under outer: counts are per region and
# thread, so neither path carries them, nor any roofline field
for path in ("mixed", "outer > mixed"):
    assert "counts" not in r[path] and "achieved" not in r[path], r[path]
print("placed:", {p: (r[p]["dram_intensity"]["value"], r[p]["achieved"]["value"]) for p in ("stream", "dgemm")})
PY
echo ok
