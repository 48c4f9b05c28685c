#!/bin/bash
# replay corpus calibration/v0 epyc-7702: nunatak calibrate --replay gives the recorded maxima, measured, and caches nothing
set -eu
ENTRY="$NUNATAK_CORPUS_DIR/recordings/calibration/v0/linux-x86_64/epyc-7702"
[ -d "$ENTRY" ] || { echo "skip: corpus entry absent"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$WORK"/*.txt >&2 2>/dev/null; exit 1; }
export XDG_CACHE_HOME="$WORK/cache"
"$NUNATAK" calibrate --replay "$ENTRY" --json > "$WORK/out.json" 2> "$WORK/err.txt" ||
	fail "nunatak calibrate --replay exited $?"
"$NUNATAK" calibrate --replay "$ENTRY" > "$WORK/text.txt" 2>> "$WORK/err.txt" ||
	fail "nunatak calibrate --replay (text) exited $?"
[ ! -e "$WORK/cache/nunatak/machines" ] || ! ls "$WORK/cache/nunatak/machines"/*.json 2>/dev/null ||
	fail "a replay wrote a Machine profile into the cache"
grep -q "^  dram_bandwidth .*1.012e+11 B/s .*measured" "$WORK/text.txt" || fail "text table"
grep -q "not cached: a replayed Machine is never cached" "$WORK/text.txt" || fail "not-cached line"
python3 - "$WORK/out.json" "$ENTRY" <<'PY' || fail "assertions"
import json, sys, glob, os
doc, entry = json.load(open(sys.argv[1])), sys.argv[2]
want = {}
for f in sorted(glob.glob(os.path.join(entry, "invocations", "*.json"))):
    inv = json.load(open(f))
    if os.path.basename(inv["argv"][0]) == "kernel-v0":
        reps = [float(l.split()[2]) for l in open(f[:-5] + ".stdout") if l.startswith("rep ")]
        want[{"triad": "dram_bandwidth", "fma_dp": "flops_dp", "fma_sp": "flops_sp"}[inv["argv"][1]]] = max(reps)
assert want == {"dram_bandwidth": 1.012428e11, "flops_dp": 1.171888e12, "flops_sp": 2.343294e12}, want
got = {c["name"]: c for c in doc["machine"]["ceilings"]}
assert set(got) == set(want), got
for k, v in want.items():
    assert got[k]["value"] == v and got[k]["quality"] == "measured" and got[k]["reason"] is None, got[k]
assert got["dram_bandwidth"]["unit"] == "B/s" and got["flops_dp"]["unit"] == "flop/s"
assert doc["source"] == "calibrated" and doc["stored"] is False and doc["profile"] is None, doc
c = doc["calibration"]
assert c["compiler"] == "cc (Ubuntu 14.2.0-19ubuntu2) 14.2.0" and c["isa"] == "avx2", c
assert c["measured"] == 3 and c["estimated"] == 0 and c["problem"] is None, c
# The recorded Machine is the identity of the recording's platform, not this one.
assert doc["identity"] == doc["machine"]["identity"]
PY
