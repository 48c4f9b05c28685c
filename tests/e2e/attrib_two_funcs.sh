#!/bin/bash
# Attribution end to end with real perf: two functions at ~70 % / ~30 % of CPU time, both named, shares within 5 points, inlined loop in the transverse view.
set -eu
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 2; }
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g "$NUNATAK_SOURCE_DIR/tests/fixtures/attrib/two_funcs.c" -o "$tmp/two_funcs"
cd "$tmp"
"$NUNATAK" run -q -o "$tmp/run" -- ./two_funcs 300000000 >"$tmp/app.out" 2>"$tmp/run.err" || {
	cat "$tmp/run.err"; echo "nunatak run failed"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/report.json"
python3 - "$tmp/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d["coverage"]["samples"]["value"] in (None, 0):
    print("skip: no samples collected (perf blocked here?)"); sys.exit(2)
shares = {h["name"]: h for h in d["hotspots"]}
for name, want in (("heavy_seventy", 0.70), ("light_thirty", 0.30)):
    h = shares.get(name)
    assert h, f"{name} not named among {list(shares)}"
    assert h["resolution_level"] == "line", (name, h["resolution_level"])
    got = h["share"]["value"]
    assert abs(got - want) <= 0.05, f"{name}: share {got:.3f}, expected {want} +- 0.05"
    print(f"{name}: {got:.3f} (line level)")
# the loop body `spin` is inlined into both: one row of the transverse view, 2 sites
spin = [v for v in d["inline_view"] if v["function"] == "spin"]
assert spin and spin[0]["sites"] == 2 and spin[0]["share"]["value"] > 0.9, d["inline_view"]
PY
