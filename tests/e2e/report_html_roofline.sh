#!/bin/bash
# The HTML roofline drawn by headless Chromium from the payload the product computed by replaying workload-c-roofline (log-log, ceilings, ridge, the Hotspot on the envelope geometry), the Ceilings with Quality in the provenance drawer, and per-rank points and table on an MPI payload.
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
corpus="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64/workload-c-roofline"
[ -d "$corpus" ] || { echo "skip: corpus entry $corpus not found"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
unset NUNATAK_NO_CALIBRATE # the entry's recorded calibration is replayed
cd "$tmp"
printf 'runs_dir = ".nunatak"\n' > nunatak.toml
"$NUNATAK" run --replay "$corpus" --json -- ./workload >"$tmp/run.json" 2>"$tmp/err.txt"
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$tmp/run.json")
"$NUNATAK" report --json "$run" >"$tmp/payload.json"
report="$run/report.html"
[ -s "$report" ] || { echo "FAIL: $report not written" >&2; exit 1; }

dump_dom "file://$report#hotspot-0" "$tmp/detail.html"
expect "$tmp/detail.html" '<h3>Roofline</h3>' '<svg class="roofline"' 'aria-label="roofline of main"' \
	'DRAM intensity (flop/byte)' 'achieved (flop/s)' 'flops_dp 1.17 Tflop/s' 'DRAM 104 GB/s' \
	'class="pt current q-estimated"' 'class="to-roof"'
reject "$tmp/detail.html" 'Off the roofline' 'class="fatal"' 'NaN' 'undefined' 'class="pt rank'
# Each downgrade reason once, in the findings and in the detail.
python3 - "$tmp/detail.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
for block in (re.search(r'<li class="downgraded">(.*?)</li>', dom, re.S).group(1),
              re.search(r'<section class="panel downgrades">(.*?)</section>', dom, re.S).group(1)):
    text = re.sub(r"<[^>]+>", "; ", block)
    parts = [p.strip() for p in text.replace("Downgraded to estimated:", "").split(";") if p.strip()]
    # A line names the values it downgrades first ("achieved, DRAM intensity: why").
    label = r"(?:share|achieved|attainable|envelope fraction|DRAM intensity|imbalance)"
    parts = [re.sub(r"^%s(?:, %s)*: " % (label, label), "", p) for p in parts]
    assert len(parts) == len(set(parts)), parts
    assert "demand fills only: hardware-prefetched traffic is not counted" in parts, parts
PY
# Geometry, against the payload's own numbers: the memory diagonal stops at
# the ridge, the roof is flat from there, the point sits at (I, achieved) on
# the log-log axes and its dotted line rises to min(peak, bw x I).
python3 - "$tmp/detail.html" "$tmp/payload.json" <<'PY'
import json, math, re, sys
dom, pl = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
svg = re.search(r'<svg class="roofline".*?</svg>', dom, re.S).group(0)
num = lambda s: float(s)
roofs = re.findall(r'<line class="roof q-(\w+)" x1="([\d.e+-]+)" y1="([\d.e+-]+)" x2="([\d.e+-]+)" y2="([\d.e+-]+)"', svg)
assert len(roofs) == 2, roofs
(qm, ax1, ay1, ax2, ay2), (qc, bx1, by1, bx2, by2) = [(q, *map(num, r)) for q, *r in roofs]
assert qm == "measured" and qc == "measured", roofs
assert (ax2, ay2) == (bx1, by1), "the diagonal must end where the roof starts (the ridge)"
assert abs(by1 - by2) < 1e-6, "the compute roof is flat"
assert ay1 > ay2, "the memory diagonal rises to the right"
ceil = {c["name"]: c["value"] for c in pl["machine"]["ceilings"]}
peak, bw = ceil["flops_dp"], ceil["dram_bandwidth"]
ridge = peak / bw
assert "ridge at %s flop/byte" % ("%.2f" % ridge if ridge < 10 else "%.1f" % ridge) in svg, ridge
h = pl["hotspots"][0]
I, A, att = h["dram_intensity"]["value"], h["achieved"]["value"], h["attainable"]["value"]
assert abs(att - min(peak, bw * I)) <= 1e-9 * att
cx, cy = map(num, re.search(r'<g class="pt current[^"]*">.*?<circle cx="([\d.e+-]+)" cy="([\d.e+-]+)"', svg, re.S).groups())
# Log-log: pixels per decade from the diagonal (slope 1 in decades).
# x of the ridge and of the point: their distance in decades is log10(ridge / I).
dec_px = (ax2 - cx) / math.log10(ridge / I)
# the same scale on the diagonal's own span: from ax1 to ax2 is log10(ridge / x0).
x0 = ridge / 10 ** ((ax2 - ax1) / dec_px)
assert abs(math.log10(x0) - round(math.log10(x0))) < 1e-6, ("the axis starts on a decade", x0)
line = re.search(r'<line class="to-roof" x1="([\d.e+-]+)" x2="([\d.e+-]+)" y1="([\d.e+-]+)" y2="([\d.e+-]+)"', svg)
tx1, tx2, ty1, ty2 = map(num, line.groups())
assert tx1 == cx and tx2 == cx and ty1 == cy
# The attainable point lies on the diagonal (I < ridge): interpolate it at cx.
yd = ay1 + (ay2 - ay1) * (cx - ax1) / (ax2 - ax1)
assert abs(yd - ty2) < 0.01, (yd, ty2)
# Achieved below attainable by log10(att / A) decades; the y decade length
# is read from the diagonal, which spans as many decades in y as in x.
ydec = (ay1 - ay2) / math.log10(ridge / x0)
assert abs((cy - ty2) - ydec * math.log10(att / A)) < 0.01, (cy, ty2, ydec)
PY

# The provenance drawer: every Ceiling with its value and Quality.
dump_dom "file://$report#provenance" "$tmp/prov.html"
python3 - "$tmp/prov.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
prov = re.search(r'<aside id="provenance".*?</aside>', dom, re.S).group(0)
cei = prov[prov.index("<h3>Ceilings"):]
for name, val in (("dram_bandwidth", "104 GB/s"), ("flops_dp", "1.17 Tflop/s"), ("flops_sp", "2.34 Tflop/s")):
    row = re.search(r"<tr><t[dh][^>]*>%s</t[dh]>(.*?)</tr>" % name, cei, re.S)
    assert row, (name, cei[:600])
    text = re.sub(r"<[^>]+>", "", row.group(1))
    assert val in text and "measured" in text, (name, text)
PY

# Per-rank points: the same product payload, hotspot 0 given three ranks
# (rank 1 at half the envelope), drawn as squares with a table.
python3 - "$tmp/payload.json" "$tmp/mpi.json" <<'PY'
import copy, json, sys
pl = json.load(open(sys.argv[1]))
h = pl["hotspots"][0]
rows = []
for r, f in ((0, 1.0), (1, 0.5), (2, 1.0)):
    row = {k: copy.deepcopy(h[k]) for k in ("share", "dram_intensity", "achieved", "attainable", "envelope_fraction")}
    row["achieved"]["value"] *= f
    row["envelope_fraction"]["value"] *= f
    row.update(rank=r, samples=h["samples"] // 3, classification=h["classification"], classification_reason=None)
    rows.append(row)
h["ranks"] = rows
# and a second Hotspot, to be drawn pale behind the current one
o = copy.deepcopy(h)
o.update(name="other_fn", ranks=[])
o["dram_intensity"]["value"] *= 10
o["achieved"]["value"] *= 5
o["share"]["value"] = 0.0
pl["hotspots"].append(o)
json.dump(pl, open(sys.argv[2], "w"))
PY
mkdir mpi && cp mpi.json mpi/payload.json
"$NUNATAK" report --payload mpi/payload.json --html 2>/dev/null
dump_dom "file://$tmp/mpi/report.html#hotspot-0" "$tmp/mpi.html"
expect "$tmp/mpi.html" 'Small squares: this Hotspot on each rank.' 'class="grid-table ranks-placement"' \
	'<tr data-rank="1">'
python3 - "$tmp/mpi.html" "$tmp/mpi.json" <<'PY'
import re, sys, json
dom, pl = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
pts = re.findall(r'<g class="pt rank q-\w+" data-rank="(\d)"><rect x="([\d.e+-]+)" y="([\d.e+-]+)"', dom)
assert [p[0] for p in pts] == ["0", "1", "2"], pts
y = {p[0]: float(p[2]) for p in pts}
x = {p[0]: float(p[1]) for p in pts}
assert x["0"] == x["1"] == x["2"], "same intensity on every rank"
svg = re.search(r'<svg class="roofline".*?</svg>', dom, re.S).group(0)
groups = re.findall(r'<g class="pt (current|other|rank)', svg)
assert groups.count("other") == 1 and groups.count("current") == 1, groups
assert groups[-1] == "current", "the Hotspot is drawn last, over the pale others"
assert "other_fn:" in svg
assert y["1"] > y["0"] and y["0"] == y["2"], "rank 1 achieves less: lower on the chart"
table = re.search(r'<table class="grid-table ranks-placement">.*?</table>', dom, re.S).group(0)
cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r'<tr data-rank="1">(.*?)</tr>', table, re.S)[0].split("</td>")]
f = pl["hotspots"][0]["ranks"][1]["envelope_fraction"]["value"]
assert cells[0] == "1" and ("%.1f%%" % (100 * f)) in cells[3], cells
PY
mkdir -p "$NUNATAK_BUILD_DIR/test-artifacts"
screenshot "file://$report#hotspot-0" "$NUNATAK_BUILD_DIR/test-artifacts/report_html_roofline.png" || true
echo "ok: roofline drawn from a replayed Run and checked"
