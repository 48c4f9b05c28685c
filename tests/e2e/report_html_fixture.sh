#!/bin/bash
# report.html drawn by headless Chromium from a hand-written payload (ceilings, estimated values, ranks, degradations, hostile source text): levels 1-3, Quality labels, escaping, --no-source.
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/payload.json"
"$NUNATAK" report --payload "$tmp/payload.json" --html 2>"$tmp/err.txt"
expect "$tmp/err.txt" "Report: $tmp/report.html"
page="file://$tmp/report.html"

# Level 1 and level 2 (no hash): every Hotspot, every Quality, every degradation.
dump_dom "$page" "$tmp/dom.html"
expect "$tmp/dom.html" \
	'4 Hotspots above the statistical floor hold 93.4% of the sampled time.' \
	'2,050 samples of task-clock, over 8.21 s of sampled time, on 2 of 4 ranks (4 application threads); 2 MPI runtime helper threads (progress, event loops) seen beside them, not counted as Loci.' \
	'Threads: 4 application threads over the 2 sampled ranks; 2 MPI runtime helper threads (progress, event loops, 0.4% of the sampled time) seen beside them, not counted as application Loci.' \
	'<td>2 + 1 helper</td>' \
	'<span class="hs-name">reduce_sq</span>' '<span class="hs-name">dgemm_tile</span>' \
	'<span class="hs-name">halo_exchange</span>' '<span class="hs-name">0x7f3a/libm.so.6+0x1a2b0</span>' \
	'</span>measured</span>' '</span>estimated</span>' \
	'<span class="val q-unavailable"' '</span>unavailable</span>' \
	'Downgraded to estimated: achieved, attainable, envelope fraction, DRAM intensity: FLOPs not split by precision' \
	'line 14 of kernels.c holds 71.0% of this Hotspot' \
	'What this report does not say' \
	'degraded [llvm-missing]</span>: llvm-symbolizer not found' \
	'remedy: install llvm (apt-get install llvm)' \
	'degraded [rank-sampling-partial]</span>' \
	'The flops_dp Ceiling is estimated: theoretical peak' \
	'6.6% of the sampled time is in 41 Hotspots below the floor of 30 samples' \
	'Ranks 2, 3 were counted, not sampled' \
	'busiest rank 1 at 1.31x the mean; MPI holds 18.0% of the time' \
	'<section class="level level2" id="inventory">' \
	'<tr class="others">' '41 Hotspots below the floor of 30 samples' \
	'By inline frame' 'in 3 hotspots' \
	'AMD EPYC 9354P 32-Core Processor · 64 cores, 16 allocated' \
	'mpirun -n 4 ./solver --grid 512' '9f1c2ab7e0d4' \
	'<code class="cmd target" title="mpirun -n 4 ./solver --grid 512">solver --grid 512</code>' \
	'<span class="launcher" title="mpirun -n 4 ./solver --grid 512">via mpirun -n 4</span>'
reject "$tmp/dom.html" 'id="detail"' 'class="fatal"' 'undefined' 'NaN' '>null<' 'on 4 Loci'
# An absent value is never drawn as a number: halo_exchange's GFLOP/s cell.
python3 - "$tmp/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
row = re.search(r'<tr class="hs-row"[^>]*data-go="2".*?</tr>', dom, re.S).group(0)
cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
text = [re.sub(r"<[^>]+>", "", c) for c in cells]
assert text[3] == "unavailable" and text[4] == "unavailable", text
assert text[5] == "3.40\u00d7", text
PY

# Level 3 of the first Hotspot: roofline, hot lines, the hostile line as text.
dump_dom "$page#hotspot-0" "$tmp/d0.html"
expect "$tmp/d0.html" '<section class="level level3" id="detail" data-hotspot="0">' \
	'← Inventory' '<svg class="roofline"' 'flops_dp 160 Gflop/s (estimated)' \
	'<tr class="hot"><td class="ln">14</td><td class="lpct"' '71.0%' \
	'&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; must stay text' \
	'Ventilation by inline frame' '<span class="hs-name">solve_step</span>' \
	'> ± 3.1% relative (± 1.6 points)</span>'
reject "$tmp/d0.html" 'id="inventory"' 'Off the roofline' 'undefined' 'NaN' '>null<'
grep -c '<script' "$tmp/d0.html.raw" | grep -qx 2 || { echo "FAIL: a payload string became a script element" >&2; exit 1; }

# Level 3 of a Hotspot without FLOPs: off the roofline, with the reason.
dump_dom "$page#hotspot-2" "$tmp/d2.html"
expect "$tmp/d2.html" '<h3>Off the roofline</h3>' 'no flops_dp raw counter in this Run' \
	'unavailable: no caller recorded for this Hotspot'
reject "$tmp/d2.html" '<svg class="roofline"'

# --no-source: a separate page, source text withheld, line shares kept.
"$NUNATAK" report --payload "$tmp/payload.json" --html --no-source 2>/dev/null
[ -s "$tmp/report-no-source.html" ] || { echo "FAIL: no report-no-source.html" >&2; exit 1; }
reject "$tmp/report-no-source.html" 'static double reduce' 'alert(1)'
dump_dom "file://$tmp/report-no-source.html#hotspot-0" "$tmp/ns.html"
expect "$tmp/ns.html" 'Source text unavailable: source text withheld by --no-source' \
	'<td class="code withheld">···</td>' '71.0%'

# Interaction (sort, filter, row click, Escape, back, drawer): a copy of the
# page with a driver script appended; virtual time lets its timers run.
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/report/inject.py" "$tmp/report.html" "$NUNATAK_SOURCE_DIR/tests/fixtures/report/interact.js" "$tmp/interact.html"
chromium_run --virtual-time-budget=5000 --dump-dom "file://$tmp/interact.html" >"$tmp/interact.dom"
grep -q '<pre id="selftest">SELFTEST OK' "$tmp/interact.dom" || {
	echo "FAIL: interaction" >&2
	sed -n '/<pre id="selftest">/,/<\/pre>/p' "$tmp/interact.dom" >&2
	exit 1
}

# A payload with nothing but its name: drawn, every absence said, no crash.
mkdir "$tmp/min"
echo '{"name": "nunatak-report", "schema": 5}' >"$tmp/min/payload.json"
"$NUNATAK" report --payload "$tmp/min/payload.json" --html 2>/dev/null
dump_dom "file://$tmp/min/report.html" "$tmp/min.html"
expect "$tmp/min.html" 'No Hotspot above the statistical floor' 'unnamed Run' \
	'command unavailable' 'CPU unavailable' 'duration unavailable' 'What this report does not say'
reject "$tmp/min.html" 'class="fatal"' 'undefined' '>null<' 'NaN'

# Caps: 10 findings, 32 rank rows; the inventory keeps every Hotspot.
mkdir "$tmp/many"
python3 - "$tmp/payload.json" "$tmp/many/payload.json" <<'PY'
import copy, json, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
base = p["hotspots"][2]
p["hotspots"] = []
for i in range(40):
    h = copy.deepcopy(base)
    h["name"] = "kernel_%02d" % i
    h["share"]["value"] = 0.02
    p["hotspots"].append(h)
row = p["ranks"]["rows"][0]
p["ranks"]["rows"] = [dict(row, rank=r) for r in range(50)]
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/many/payload.json" --html 2>/dev/null
dump_dom "file://$tmp/many/report.html" "$tmp/many.html"
expect "$tmp/many.html" '40 Hotspots above the statistical floor hold 80.0% of the sampled time.' \
	'… and 30 Hotspots above the floor, holding 60.0% of the sampled time' \
	'… and 18 more ranks not shown' '<span class="hs-name">kernel_39</span>'
[ "$(grep -o '<li class="finding">' "$tmp/many.html" | wc -l)" = 10 ] || { echo "FAIL: findings not capped at 10" >&2; exit 1; }
[ "$(grep -o '<tr class="hs-row"' "$tmp/many.html" | wc -l)" = 40 ] || { echo "FAIL: inventory lost rows" >&2; exit 1; }

# Every rank counted, none sampled: the columns that need samples are
# unavailable for every row, so they are one sentence, not columns of
# "unavailable"; the columns some rank has stay, "unavailable" where absent.
mkdir "$tmp/counted"
python3 - "$tmp/payload.json" "$tmp/counted/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
for r in p["ranks"]["rows"]:
    r.update(sampled=False, app_ns=None, mpi_ns=None, sys_ns=None, mpi_fraction=None,
             samples=0, threads=0, helper_threads=0)
p["ranks"]["rows"][3]["node"] = None
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/counted/payload.json" --html 2>/dev/null
dump_dom "file://$tmp/counted/report.html" "$tmp/counted.html"
python3 - "$tmp/counted.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
sec = re.search(r'<section class="ranks">(.*?)</section>', dom, re.S).group(1)
heads = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", sec)]
assert heads == ["Rank", "Node", "Collection", "Time", "Time from"], heads
note = re.sub(r"<[^>]+>", "", re.search(r'<p class="muted gone-columns">(.*?)</p>', sec, re.S).group(1))
assert note == ("Unavailable for every rank, so not drawn as columns: Threads (no rank was sampled); "
                "Application, MPI and MPI fraction (no rank was sampled: the split between "
                "application and MPI time needs samples)."), note
body = sec.split("<tbody>", 1)[1]
assert body.count(">unavailable<") == 1, body   # rank 3's node only
PY

# The CSP allows the page's own script by its hash only: a script smuggled
# into the page (were escaping ever to fail) does not run, the page still does.
python3 - "$tmp/report.html" "$tmp/smuggled.html" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
assert "script-src 'sha256-" in html and "'unsafe-inline'; img-src" not in html, "no hash CSP"
at = html.rindex("</body>")
smuggled = '<script>document.body.setAttribute("data-smuggled", "ran")</script>\n'
open(sys.argv[2], "w", encoding="utf-8").write(html[:at] + smuggled + html[at:])
PY
chromium_run --virtual-time-budget=3000 --dump-dom "file://$tmp/smuggled.html" >"$tmp/smuggled.dom"
grep -q 'data-smuggled="ran"' "$tmp/smuggled.dom" && { echo "FAIL: a smuggled inline script ran" >&2; exit 1; }
grep -q 'class="hotspot' "$tmp/smuggled.dom" || grep -q '<table' "$tmp/smuggled.dom" ||
	{ echo "FAIL: the page did not draw under its hash CSP" >&2; exit 1; }

# A screenshot for a human to look at (kept in the build tree).
mkdir -p "$NUNATAK_BUILD_DIR/test-artifacts"
screenshot "$page#hotspot-0" "$NUNATAK_BUILD_DIR/test-artifacts/report_html_fixture.png" || true
echo "ok: fixture report drawn and checked"
