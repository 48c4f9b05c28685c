#!/bin/bash
# Ceilings per node on the page (headless Chromium): the Nodes table shows each node's Machine, its flops_dp and dram_bandwidth Ceilings with their Quality and where they came from (the launch node's Machine, or borrowed from the launch node with an estimated badge); a Hotspot's per-rank placement table names each rank's node and the Ceilings it was placed against; a 2-rank Run's "who talks to whom" heat maps draw their axis labels whole ("to → (rank)" was cut to "to → (r"); ranks that ran as separate 1-rank MPI worlds are said as such, never as one 4-rank job with a busiest rank
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/p"
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/p/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
v = lambda x, unit, q="measured", why=None: {"value": x, "unit": unit, "quality": q, "reason": why}
why = "node n2 (Machine bbbb: 1 of 2 cores) has no Ceilings of its own: the launch node's stand in"
ceil = {"n1": {"flops_dp": v(4.25e10, "flop/s"), "dram_bandwidth": v(1.9e10, "B/s")},
        "n2": {"flops_dp": v(4.25e10, "flop/s", "estimated", why), "dram_bandwidth": v(1.9e10, "B/s", "estimated", why)}}
rows = p["ranks"]["rows"]
for r in rows:
    r["node"] = "n1" if r["rank"] < 2 else "n2"
machine = lambda n, ident, cores, src, reason: {"identity": ident, "cpu_model": "CPU X", "visible_cores": cores,
    "logical_cores": 2, "ceilings_source": src, "reason": reason, "ceilings": ceil[n]}
p["ranks"]["nodes"] = {
    "rows": [{"node": n, "ranks": [r["rank"] for r in rows if r["node"] == n],
              "time_ns": v(2e9, "ns"), "value_ns": v(1.5e9, "ns"),
              "machines": [machine("n1", "aaaa", 2, "launch", None) if n == "n1"
                           else machine("n2", "bbbb", 1, "borrowed", why)]} for n in ("n1", "n2")],
    "imbalance": {"value": 1.2, "busiest_node": "n1", "basis": "application time", "quality": "measured", "reason": None}}
h = p["hotspots"][0]
h["ranks"] = [{"rank": r["rank"], "node": r["node"], "ceilings": ceil[r["node"]], "samples": 100,
               "share": h["share"], "dram_intensity": h["dram_intensity"], "achieved": h["achieved"],
               "attainable": h["attainable"], "envelope_fraction": h["envelope_fraction"],
               "classification": h["classification"], "classification_reason": h["classification_reason"]}
              for r in rows]
# the Run-wide roof: the sum of the two nodes' Ceilings (n2's borrowed, estimated)
p["roofline"] = {"basis": "the sum of the Ceilings of its 2 nodes (n1, n2)", "nodes": 2, "missing": None,
                 "ceilings": [dict(v(8.5e10, "flop/s", "estimated", why), name="flops_dp"),
                              dict(v(3.8e10, "B/s", "estimated", why), name="dram_bandwidth")]}
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/p/payload.json" --html 2>/dev/null
dump_dom "file://$tmp/p/report.html" "$tmp/dom.html"
dump_dom "file://$tmp/p/report.html#hotspot-0" "$tmp/d0.html"
python3 - "$tmp/dom.html" "$tmp/d0.html" <<'PY'
import html, re, sys
dom, d0 = (open(f, encoding="utf-8").read() for f in sys.argv[1:3])
text = lambda s: html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)).strip())
nodes = re.search(r'<section class="nodes">.*?</section>', dom, re.S)
assert nodes, "no Nodes section"
nodes = nodes.group(0)
ths = [text(t) for t in re.findall(r"<th [^>]*>(.*?)</th>", nodes, re.S)]
for want in ("Machine", "flops_dp Ceiling", "dram_bandwidth Ceiling", "Ceilings from"):
    assert want in ths, (want, ths)
rows = {m.group(1): text(m.group(0)) for m in re.finditer(r'<tr [^>]*data-node="([^"]+)".*?</tr>', nodes, re.S)}
assert "aaaa, 2 of 2 cores" in rows["n1"] and "the launch node's Machine" in rows["n1"], rows["n1"]
assert "borrowed" not in rows["n1"], rows["n1"]
assert "bbbb, 1 of 2 cores" in rows["n2"] and "borrowed from the launch node" in rows["n2"], rows["n2"]
assert "estimated" in rows["n2"], rows["n2"]
n2 = re.search(r'<tr [^>]*data-node="n2".*?</tr>', nodes, re.S).group(0)
assert 'title="node n2 (Machine bbbb' in n2, "the borrowed Ceilings' reason is not on the page"
assert "42.5 Gflop/s" in rows["n1"] and "19.0 GB/s" in rows["n1"], rows["n1"]
# each node's times read as seconds, as the ranks' do (never "1500000000 ns")
assert "1.50 s" in rows["n1"] and "2.00 s" in rows["n1"] and " ns" not in rows["n1"], rows["n1"]
table = re.search(r'<table class="grid-table ranks-placement">.*?</table>', d0, re.S)
assert table, "no per-rank placement table in the detail"
table = table.group(0)
ths = [text(t) for t in re.findall(r"<th>(.*?)</th>", table, re.S)]
assert ths[:3] == ["Rank", "Node", "Its node's Ceilings (flops_dp, dram_bandwidth)"], ths
trs = {m.group(1): m.group(0) for m in re.finditer(r'<tr data-rank="(\d+)">.*?</tr>', table, re.S)}
assert sorted(trs) == ["0", "1", "2", "3"], sorted(trs)
assert "<td>n1</td>" in trs["0"] and "<td>n2</td>" in trs["3"], (trs["0"], trs["3"])
assert "q-estimated" in trs["3"] and "q-estimated" not in trs["0"], (trs["0"], trs["3"])
# the header says the Run spans 2 nodes before the (launch node's) Machine
head = re.search(r'<header[^>]*>.*?</header>', dom, re.S)
assert head and "2 nodes, launch node" in text(head.group(0)), head and text(head.group(0))
# the Run's roofline is drawn against that sum, and says so
roof = re.search(r'<section class="run-roofline".*?</section>', dom, re.S)
assert roof, "no roofline of the Run on the page"
roof = roof.group(0)
labels = [text(t) for t in re.findall(r'<text class="roof-label"[^>]*>(.*?)</text>', roof, re.S)]
assert "flops_dp 85.0 Gflop/s \u00b7 estimated" in labels and "DRAM 38.0 GB/s \u00b7 estimated" in labels, labels
assert "Roofs: the sum of the Ceilings of its 2 nodes (n1, n2)" in text(roof), text(roof)
print("nodes:", rows, "roofs:", labels)
PY
# A 2 x 2 "who talks to whom" (point-to-point and collectives): every axis
# label whole inside its drawing, as the browser rendered it.
mkdir "$tmp/two"
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/two/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
ns = lambda x: {"value": x, "unit": "ns", "quality": "measured", "reason": None}
coll = {"quality": "estimated", "reason": "the MPI library's algorithm decides which ranks really exchange the data",
        "ranks": 2, "ranks_reporting": 2, "calls": 2, "bytes": {"value": 16, "unit": "B", "quality": "estimated", "reason": "pattern"},
        "bytes_by_pattern": {"all-pairs": 16}, "time_ns": ns(3000), "unplaced": {"calls": 0, "bytes": 0},
        "bin": 1, "bins": 2, "cells": [[0, 1, 8, 1, 1500], [1, 0, 8, 1, 1500]], "groups": [], "groups_total": 0,
        "basis": "each collective's meaning"}
p["ranks"]["comm_matrix"] = {"ranks": 2, "ranks_reporting": 2, "messages": 2, "bytes": 16, "time_ns": ns(2000),
    "unplaced": {"messages": 0, "bytes": 0}, "bin": 1, "bins": 2, "cells": [[0, 1, 8, 1, 1000], [1, 0, 8, 1, 1000]],
    "top_pairs": [{"from": 0, "to": 1, "bytes": 8, "messages": 1, "time_ns": 1000}],
    "basis": "bytes as the calls passed them", "collectives": coll}
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/two/payload.json" --html 2>/dev/null
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/report/inject.py" "$tmp/two/report.html" \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/report/heat_labels.js" "$tmp/two/heat.html"
chromium_run --window-size=1400,1400 --virtual-time-budget=10000 --dump-dom "file://$tmp/two/heat.html" >"$tmp/heat.dom"
python3 - "$tmp/heat.dom" <<'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
dom = re.sub(r"(?is)<script\b.*?</script>", "", dom)  # what the page drew, not its source
pre = re.search(r'<pre id="heat-labels">(.*?)</pre>', dom, re.S)
assert pre, "the driver wrote nothing: the page did not draw"
lines = html.unescape(pre.group(1)).splitlines()
print("\n".join(lines))
heats = [l for l in lines if l.startswith("HEAT ")]
assert len(heats) == 2, ("want the point-to-point and the collectives maps", lines)
for h in heats:
    assert h.startswith("HEAT 2 cells,") and h.endswith("texts: to \u2192 (rank) | from \u2193 | 0 | 0 | 1 | 1"), h
clipped = [l for l in lines if l.startswith("CLIPPED")]
assert not clipped, clipped
PY
# Separate 1-rank worlds (an MPICH program under Open MPI's mpirun): the
# Ranks section never says "4 ranks ... busiest rank", and says why there is
# no heat map.
mkdir "$tmp/apart"
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/apart/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
r = p["ranks"]
why = ("each rank's own MPI says its MPI_COMM_WORLD holds 1 rank, the launch numbered 4: separate jobs, "
       "whose ranks are not compared (launcher and MPI library do not match: mpi-separate-worlds)")
r["imbalance"] = {"value": None, "unit": "ratio", "quality": "unavailable", "reason": why,
                  "formula": "busiest rank's time / mean rank time", "basis": "total time"}
r["busiest_rank"] = -1
r["comm_matrix"] = None
r["separate_worlds"] = {"text": "4 separate 1-rank MPI worlds", "worlds": 4, "world_size": 1, "reporting": 4, "reason": why}
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/apart/payload.json" --html 2>/dev/null
dump_dom "file://$tmp/apart/report.html" "$tmp/apart.dom"
python3 - "$tmp/apart.dom" <<'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
text = lambda s: html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)).strip())
ranks = re.search(r'<section class="ranks">.*?</section>', dom, re.S)
assert ranks, "no Ranks section"
head = text(ranks.group(0))
assert "Ranks 4 separate 1-rank MPI worlds, not one 4-rank job (" in head, head[:400]
assert "imbalance across them not computed: each rank's own MPI says its MPI_COMM_WORLD holds 1 rank" in head, head[:600]
assert "busiest rank" not in head and "4 ranks (" not in head, head[:600]
mpi = re.search(r'<section class="mpi">.*?</section>', dom, re.S)
assert mpi and "Who talks to whom: not placed. The ranks ran as 4 separate 1-rank MPI worlds" in text(mpi.group(0)), mpi and text(mpi.group(0))[:400]
assert re.search(r"on (\d of )?4 ranks \(4 separate 1-rank MPI worlds, not one job\)", text(dom)), "the coverage sentence"
print("separate worlds:", head[:200])
PY
echo "ok: each node's Machine and Ceilings on the page, each rank's too; a 2 x 2 heat map's labels whole; separate worlds said as such"
