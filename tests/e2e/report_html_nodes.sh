#!/bin/bash
# The page at cluster scale (issue 22 items 6-7), from a payload: nodes as Loci (each node's ranks as ranges, its time, the busiest node against the mean) and the point-to-point heat map of 4096 ranks in 64 x 64 cells of 64 ranks, with its heaviest pairs named, measured; apart, the collectives' heat map (an Allreduce over every rank: 64 x 64 cells), labelled estimated with the reason, and its collectives by communicator
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
why = "the MPI library's algorithm decides which ranks really exchange a collective's data"
coll = [[f, t, 8 * 64 * (63 if f == t else 64), 64 * (63 if f == t else 64), 8192] for f in range(64) for t in range(64)]
r["comm_matrix"]["collectives"] = {"quality": "estimated", "reason": why, "ranks": n, "ranks_reporting": n,
    "calls": 4096, "bytes": {"value": 8 * 4096 * 4095, "unit": "B", "quality": "estimated", "reason": why},
    "bytes_by_pattern": {"one-to-all": 0, "all-to-one": 0, "all-pairs": 8 * 4096 * 4095, "prefix": 0, "sync": 0},
    "time_ns": v(33.5e6, clock="wall clock"), "unplaced": {"calls": 3, "bytes": 24}, "bin": b, "bins": 64, "cells": coll,
    "groups": [{"function": "MPI_Allreduce", "pattern": "all-pairs", "members": "0-4095", "size": 4096, "root": None,
                "ranks_reporting": 4096, "calls": 4096, "bytes": {"value": 8 * 4096 * 4095, "unit": "B", "quality": "estimated", "reason": why},
                "time_ns": v(33.5e6, clock="wall clock")}],
    "groups_total": 1, "basis": "each rank's collective calls measured by interposition"}
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/payload.json" --html 2>"$tmp/err.txt"
dump_dom "file://$tmp/report.html" "$tmp/dom.html"
expect "$tmp/dom.html" '<h3>Nodes</h3>' 'busiest node cn001 at 1.37x the mean node' \
	'<tr class="busiest" data-node="cn001"><td>cn001</td><td class="num">2</td><td>0–1</td>' \
	'<tr class="" data-node="cn002"><td>cn002</td><td class="num">2</td><td>2–3</td>' \
	'<h3>Who talks to whom</h3>' 'in 4096 of 4096 ranks' 'Each cell holds 64 consecutive ranks.' \
	'<title>ranks 4032–4095 → ranks 0–63: 8.00 kB in 1 message,'
[ "$(grep -o 'class="comm-cell"' "$tmp/dom.html" | wc -l)" = 128 ] || { echo "FAIL: not 128 heat-map cells"; exit 1; }
expect "$tmp/dom.html" '<h4>Point-to-point <span class="badge q-measured"' '<h4>Collectives <span class="badge q-estimated"' \
	"Estimated: the MPI library's algorithm decides which ranks really exchange" '134 MB by pattern (all-pairs 134 MB)' \
	"<title>ranks 0–63 → ranks 64–127: 32.8 kB by the collectives' patterns (estimated) in 4096 calls" \
	'<td>MPI_Allreduce</td><td>all-pairs</td><td>0-4095</td><td class="num">–</td>'
expect "$tmp/dom.html" '3 collective calls (24.0 B) on communicators that could not be placed'
[ "$(grep -o 'class="coll-cell"' "$tmp/dom.html" | wc -l)" = 4096 ] || { echo "FAIL: not 4096 collective cells"; exit 1; }
reject "$tmp/dom.html" 'undefined' 'NaN' '>null<' 'class="fatal"'
echo ok
