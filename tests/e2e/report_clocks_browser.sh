#!/bin/bash
# every time on the page says its clock (headless Chromium): the header's duration is wall clock, each time column of the ranks table names its clock per rank (sampled CPU time beside wall clock, never a wall time beside a sum over ranks unlabelled), the MPI-by-rank table's times are wall clock per rank, never summed; an unsampled rank's row, which omits app_ns and sys_ns, is drawn with them unavailable
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/p"
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/p/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
v = lambda ns, clock: {"value": ns, "unit": "ns", "quality": "measured", "reason": None, "clock": clock}
for r in p["ranks"]["rows"]:
    for k in ("time_ns", "app_ns"):
        r[k] = v(r[k], "sampled CPU time")
    if not r["sampled"]:  # as nunatak writes an unsampled rank's row (docs/mpi.md)
        del r["app_ns"], r["sys_ns"]
    r["mpi_ns"] = v(r["mpi_ns"], "wall clock")
    r["mpi"] = {"source": "interposition", "quality": "measured", "reason": None, "wall_ns": v(36.2e9, "wall clock")}
    r["mpi_calls"] = [{"name": "MPI_Allreduce", "calls": 10, "bytes": 800, "time_ns": v(1.28e10, "wall clock"), "sites": []}]
for pa in p["passes"]:
    pa["duration_s"] = 36.2
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/p/payload.json" --html 2>/dev/null
dump_dom "file://$tmp/p/report.html" "$tmp/dom.html"
python3 - "$tmp/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
text = lambda s: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)).strip()
head = text(re.search(r'<header class="topbar">.*?</header>', dom, re.S).group(0))
assert "36.2 s wall clock" in head, head
ranks = re.search(r'<section class="ranks">.*?</section>', dom, re.S).group(0)
ths = [text(t) for t in re.findall(r"<th [^>]*>(.*?)</th>", re.search(r"<thead>.*?</thead>", ranks, re.S).group(0), re.S)]
assert "Time sampled CPU time, per rank" in ths and "Application sampled CPU time, per rank" in ths, ths
assert "MPI wall clock, per rank" in ths, ths
# an unsampled rank's row omits app_ns: drawn unavailable, as when it carried it
cells = lambda rank: [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", re.search(r'<tr[^>]*><td class="num">%d</td>.*?</tr>' % rank, ranks, re.S).group(0), re.S)]
assert ths.index("Application sampled CPU time, per rank") == 6, ths
for rank in (2, 3):
    assert cells(rank)[2] == "counted" and cells(rank)[6] == "unavailable", cells(rank)
assert cells(0)[6] == "1.52 s", cells(0)
mpi = re.search(r'<table class="grid-table mpi-calls">.*?</thead>', dom, re.S).group(0)
assert "In MPI wall clock" in text(mpi), text(mpi)
assert "per rank, never summed over ranks" in text(dom), "the MPI table says its times are per rank"
PY
echo "ok: every time says its clock"
