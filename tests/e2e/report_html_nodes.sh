#!/bin/bash
# The page at cluster scale (issue 22 items 6-7), from a payload: nodes as Loci (each node's ranks as ranges, its time, the busiest node against the mean) and the point-to-point heat map of 4096 ranks in 64 x 64 cells of 64 ranks, with its heaviest pairs named
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
def v(x, q="measured", reason=None, clock="sampled CPU time"):
    return {"value": x, "unit": "ns", "quality": q, "reason": reason, "clock": clock}
r = p["ranks"]
r["nodes"] = {"rows": [
    {"node": "cn001", "ranks": [0, 1], "time_ns": v(4.2e9), "value_ns": v(3.9e9)},
    {"node": "cn002", "ranks": [2, 3], "time_ns": v(2.1e9), "value_ns": v(1.8e9)}],
    "imbalance": {"value": 1.37, "busiest_node": "cn001", "basis": "application time (user code outside the MPI runtime and the kernel)",
                  "quality": "measured", "reason": None}}
n, b = 4096, 64
cells = []
for f in range(64):  # a ring of 64-rank blocks, plus the block's own traffic
    cells.append([f, f, 63 * 8000, 63, 630000])
    cells.append([f, (f + 1) % 64, 8000, 1, 10000])
cells.sort()
r["comm_matrix"] = {"ranks": n, "ranks_reporting": n, "messages": 4096, "bytes": 4096 * 8000,
    "time_ns": v(4096e4, clock="wall clock"), "unplaced": {"messages": 0, "bytes": 0}, "bin": b, "bins": 64,
    "cells": cells,
    "top_pairs": [{"from": 4095, "to": 0, "messages": 1, "bytes": 8000, "time_ns": v(1e4, clock="wall clock")}],
    "basis": "point-to-point calls measured by interposition in every rank"}
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/payload.json" --html 2>"$tmp/err.txt"
dump_dom "file://$tmp/report.html" "$tmp/dom.html"
expect "$tmp/dom.html" '<h3>Nodes</h3>' 'busiest node cn001 at 1.37x the mean node' \
	'<tr class="busiest" data-node="cn001"><td>cn001</td><td class="num">2</td><td>0–1</td>' \
	'<tr class="" data-node="cn002"><td>cn002</td><td class="num">2</td><td>2–3</td>' \
	'<h3>Who talks to whom</h3>' 'in 4096 of 4096 ranks' 'Each cell holds 64 consecutive ranks.' \
	'<title>ranks 4032–4095 → ranks 0–63: 8.00 kB in 1 messages'
[ "$(grep -o 'class="comm-cell"' "$tmp/dom.html" | wc -l)" = 128 ] || { echo "FAIL: not 128 heat-map cells"; exit 1; }
reject "$tmp/dom.html" 'undefined' 'NaN' '>null<' 'class="fatal"'
echo ok
