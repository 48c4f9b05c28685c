#!/bin/bash
# The roofline of the whole Run in the first view of the page (headless Chromium, 1400x900): on the replayed workload-c-roofline entry the chart is above the findings and inside the window, the mark for `main` sits at the payload's DRAM intensity and achieved rate on the chart's own log-log axes, the diagonal stops at its break point and the peaks start on it, every Ceiling is labelled with value and Quality, a click opens the detail, the header marks the recorded Machine; on the replayed multipass entry (no Ceilings) no chart and one sentence, and its header shows the recorded CPU model; unplaced Hotspots are counted with their reason
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
entries="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64"
[ -d "$entries/workload-c-roofline" ] || { echo "FAIL: corpus entry workload-c-roofline missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The roofline entry, its recorded calibration replayed.
(unset NUNATAK_NO_CALIBRATE; "$NUNATAK" run --replay "$entries/workload-c-roofline" -o "$tmp/roof" -- ./workload \
	>/dev/null 2>"$tmp/err.txt") || { cat "$tmp/err.txt" >&2; fail "replay of workload-c-roofline"; }
"$NUNATAK" report --json "$tmp/roof" >"$tmp/roof.json"
page="$tmp/roof/report.html"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/report/inject.py" "$page" \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/report/first_view.js" "$tmp/roof-fv.html"
chromium_run --window-size=1400,900 --virtual-time-budget=5000 --dump-dom "file://$tmp/roof-fv.html" >"$tmp/roof.dom"
python3 - "$tmp/roof.dom" "$tmp/roof.json" <<'PY'
import json, math, re, sys
dom, pl = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
dom = re.sub(r"(?is)<script\b.*?</script>", "", dom)  # what the page drew, not its source
fv = re.search(r'<pre id="first-view">(.*?)</pre>', dom, re.S)
assert fv, "the driver wrote nothing"
fv = fv.group(1).split("\n")
top, bottom, win, width = map(int, fv[0].split()[1:])
assert 0 < top and bottom <= win, ("the chart is not in the first view", fv[0])
assert width >= 500, ("the chart is too small to read at 1400 px", width)
findings = int(fv[1].split()[1])
assert findings > bottom, ("the chart must come before the findings", fv)
assert "click main #hotspot-0" in fv, ("a click on main's mark opens its detail", fv)

svg = re.search(r'<svg class="roofline run-roofline".*?</svg>', dom, re.S).group(0)
F = r"([-\d.e+]+)"
# The chart's own axes, read from its tick labels: decades, log-log.
def ticks(axis):
    grid = re.search(r'<g class="grid">(.*?)</g>', svg, re.S).group(1)
    val = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
    out = []
    for x, y, t in re.findall(r'<text x="%s" y="%s" text-anchor="(?:middle|end)">([^<]+)</text>' % (F, F), grid):
        parts = t.split()
        v = float(parts[0]) * (val[parts[1]] if len(parts) > 1 else 1)
        anchor = re.search(r'<text x="%s" y="%s" text-anchor="(\w+)">%s<' % (re.escape(x), re.escape(y), re.escape(t)), grid).group(1)
        if (axis == "x") == (anchor == "middle"):
            out.append((math.log10(v), float(x) if axis == "x" else float(y) - 3))
    assert len(out) >= 3, (axis, out)
    (l0, p0), (l1, p1) = out[0], out[-1]
    per = (p1 - p0) / (l1 - l0)
    for l, p in out:
        assert abs(p0 + (l - l0) * per - p) < 0.01, ("ticks are not evenly spaced decades", axis, out)
    return lambda v: p0 + (math.log10(v) - l0) * per
sx, sy = ticks("x"), ticks("y")

h = pl["hotspots"][0]
assert h["name"] == "main"
I, A = h["dram_intensity"]["value"], h["achieved"]["value"]
m = re.search(r'<g class="mark hotspot q-(\w+)" data-name="main"[^>]*>.*?<circle cx="%s" cy="%s" r="%s"' % (F, F, F), svg, re.S)
assert m, "no mark for main"
q, cx, cy, r = m.group(1), *map(float, m.groups()[1:])
assert abs(cx - sx(I)) < 0.05 and abs(cy - sy(A)) < 0.05, ("main is not at its intensity and achieved rate", cx, sx(I), cy, sy(A))
worst = "estimated" if "estimated" in (h["dram_intensity"]["quality"], h["achieved"]["quality"]) else "measured"
assert q == worst, (q, worst)
assert "main: 1.22 Gflop/s at 1.21 flop/byte, 100% of the sampled time" in svg, "main's tooltip"

ceil = {c["name"]: c for c in pl["machine"]["ceilings"]}
bw, dp, sp = ceil["dram_bandwidth"]["value"], ceil["flops_dp"]["value"], ceil["flops_sp"]["value"]
line = lambda name: tuple(map(float, re.search(r'<line class="roof [^"]*" data-ceiling="%s" x1="%s" y1="%s" x2="%s" y2="%s"' % (name, F, F, F, F), svg).groups()))
dx1, dy1, dx2, dy2 = line("dram_bandwidth")
# The diagonal: bw x I, ending at its break point with the highest peak.
top_peak = max(dp, sp)
assert abs(dx2 - sx(top_peak / bw)) < 0.05 and abs(dy2 - sy(top_peak)) < 0.05, "the diagonal stops at its break point"
assert abs(sy(bw * 10 ** ((dx1 - sx(1)) / (sx(10) - sx(1)))) - dy1) < 0.05, "the diagonal is bw x I"
for name, peak in (("flops_dp", dp), ("flops_sp", sp)):
    px1, py1, px2, py2 = line(name)
    assert abs(py1 - py2) < 1e-6 and abs(py1 - sy(peak)) < 0.05, (name, "flat at its value")
    assert abs(px1 - sx(peak / bw)) < 0.05, (name, "starts on the diagonal, at its ridge")
labels = re.findall(r'<text class="roof-label" data-ceiling="(\w+)"[^>]*>([^<]+)</text>', svg)
want = {"dram_bandwidth": "DRAM 104 GB/s \u00b7 measured", "flops_dp": "flops_dp 1.17 Tflop/s \u00b7 measured",
        "flops_sp": "flops_sp 2.34 Tflop/s \u00b7 measured"}
assert dict(labels) == want, labels

# The text table beside it: the same point.
table = re.search(r'<table class="grid-table run-roofline-table">.*?</table>', dom, re.S).group(0)
row = re.sub(r"<[^>]+>", "|", re.search(r'<tr data-go="0".*?</tr>', table, re.S).group(0))
for t in ("main", "100%", "1.21 flop/byte", "1.22 Gflop/s", "memory", "1.0%"):
    assert t in row, (t, row)
# The header: the recorded Machine, said as such; this entry's recording
# names no CPU model, so none is invented.
head = re.search(r'<header class="topbar">.*?</header>', dom, re.S).group(0)
text = re.sub(r"<[^>]+>", "", head)
assert "recorded Machine" in text and "CPU model not recorded" in text, text
assert pl["machine"]["recorded"] is True, pl["machine"]
# Its duration is the recording's, never the replay's few milliseconds.
assert "duration not recorded" in text and "under 1 s" not in text, text
PY
# The same points as CSV (report --format roofline-csv), figure for figure.
"$NUNATAK" report --format roofline-csv "$tmp/roof" >"$tmp/roof.csv"
python3 - "$tmp/roof.csv" "$tmp/roof.json" <<'PY'
import csv, json, sys
rows, pl = list(csv.DictReader(open(sys.argv[1], newline=""))), json.load(open(sys.argv[2]))
assert len(rows) == 1 and rows[0]["kind"] == "hotspot" and rows[0]["name"] == "main", rows
h = pl["hotspots"][0]
for col, key in (("dram_intensity_flop_per_byte", "dram_intensity"), ("achieved_flop_per_s", "achieved"),
                 ("attainable_flop_per_s", "attainable"), ("share", "share"), ("envelope_fraction", "envelope_fraction")):
    assert float(rows[0][col]) == h[key]["value"], (col, rows[0][col], h[key])
    assert rows[0][col.rsplit("_flop", 1)[0].rsplit("_byte", 1)[0] + "_quality"] == h[key]["quality"], col
assert rows[0]["roof"] == "memory" and float(rows[0]["flops_dp_flop_per_s"]) == 1171261000000.0, rows[0]
PY
mkdir -p "$NUNATAK_BUILD_DIR/test-artifacts"
chromium_run --screenshot="$NUNATAK_BUILD_DIR/test-artifacts/report_run_roofline.png" --window-size=1400,900 \
	"file://$page" >/dev/null || true

# 2. The multipass entry: its recording names the CPU; no Ceilings, so no
# chart and one sentence.
NUNATAK_NO_CALIBRATE=1 "$NUNATAK" run --replay "$entries/workload-c-multipass" -o "$tmp/mp" -- ./workload \
	>/dev/null 2>"$tmp/err.txt" || { cat "$tmp/err.txt" >&2; fail "replay of workload-c-multipass"; }
dump_dom "file://$tmp/mp/report.html" "$tmp/mp.dom"
"$NUNATAK" report --format roofline-csv "$tmp/mp" >"$tmp/mp.csv" 2>"$tmp/mp.err"
[ "$(wc -l <"$tmp/mp.csv")" = 1 ] || fail "a CSV row without a placement: $(cat "$tmp/mp.csv")"
grep -q "no Hotspot of this Run is placed on the roofline" "$tmp/mp.err" || fail "the empty CSV is not explained"
python3 - "$tmp/mp.dom" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert "<svg class=\"roofline run-roofline\"" not in dom and "<section class=\"run-roofline\"" not in dom, "a chart without Ceilings"
said = re.findall(r'<p class="no-run-roofline">([^<]+)</p>', dom)
assert len(said) == 1 and said[0].startswith("No Hotspot is placed on the roofline: "), said
assert "flops_dp or dram_bandwidth Ceiling" in said[0], said
head = re.sub(r"<[^>]+>", "", re.search(r'<header class="topbar">.*?</header>', dom, re.S).group(0))
assert "recorded Machine" in head and "AMD EPYC 7702 64-Core Processor" in head, head
PY

# 3. Placed and unplaced together (the fixture payload): both placed marks,
# the unplaced counted once with their shared reason and share.
mkdir rich && cp "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" rich/payload.json
"$NUNATAK" report --payload rich/payload.json --html 2>/dev/null
dump_dom "file://$tmp/rich/report.html" "$tmp/rich.dom"
python3 - "$tmp/rich.dom" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
names = re.findall(r'<g class="mark hotspot q-(\w+)" data-name="([^"]+)"', dom)
assert sorted(names) == [("estimated", "dgemm_tile"), ("measured", "reduce_sq")], names
r = {n: float(v) for n, v in re.findall(r'data-name="(\w+)"[^>]*>(?:<line class="to-roof"[^>]*>(?:</line>)?)?<circle [^>]*r="([\d.]+)"', dom)}
assert abs(r["reduce_sq"] / r["dgemm_tile"] - (0.512 / 0.301) ** 0.5) < 1e-3, ("area follows the share", r)
note = re.findall(r'<p class="muted unplaced">([^<]+)</p>', dom)
assert note == ["2 Hotspots (12.1% of the sampled time) not placed: no flops_dp raw counter in this Run."], note
PY
# 4. Per rank on demand, and regions carrying counters: the replayed
# payload's main given three ranks (rank 1 at half the rate and twice the
# intensity), and a region with its own figures and three ranks' points;
# the toggle draws each one's envelope of ranks, checked on the axes.
mkdir ranks
python3 - "$tmp/roof.json" ranks/payload.json <<'PY'
import copy, json, sys
pl = json.load(open(sys.argv[1]))
h = pl["hotspots"][0]
rows = []
for r, fx, fy in ((0, 1.0, 1.0), (1, 2.0, 0.5), (2, 1.0, 1.0)):
    row = {k: copy.deepcopy(h[k]) for k in ("share", "dram_intensity", "achieved", "attainable", "envelope_fraction")}
    row["dram_intensity"]["value"] *= fx
    row["achieved"]["value"] *= fy
    row.update(rank=r, samples=10)
    rows.append(row)
h["ranks"] = rows
reg = {k: copy.deepcopy(h[k]) for k in ("share", "dram_intensity", "achieved")}
reg["achieved"]["value"] *= 3
reg.update(path="timestep > solve", calls=10)
# the region on three ranks (payload rank_points, as a per-rank trace gives):
# rank 2 at a quarter of the intensity, rank 1 at twice the rate
pts = []
for r, fx, fy in ((0, 1.0, 1.0), (1, 1.5, 2.0), (2, 0.25, 0.5)):
    q = {k: copy.deepcopy(reg[k]) for k in ("dram_intensity", "achieved")}
    q["dram_intensity"]["value"] *= fx
    q["achieved"]["value"] *= fy
    q.update(rank=r, calls=10)
    pts.append(q)
reg["rank_points"] = pts
pl["regions"] = [reg]
json.dump(pl, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload ranks/payload.json --html 2>/dev/null
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/report/inject.py" ranks/report.html \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/report/first_view.js" ranks/fv.html
chromium_run --window-size=1400,900 --virtual-time-budget=5000 --dump-dom "file://$tmp/ranks/fv.html" >"$tmp/ranks.dom"
python3 - "$tmp/ranks.dom" ranks/payload.json <<'PY'
import json, math, re, sys
dom = re.sub(r"(?is)<script\b.*?</script>", "", open(sys.argv[1], encoding="utf-8").read())
pl = json.load(open(sys.argv[2]))
fv = re.search(r'<pre id="first-view">(.*?)</pre>', dom, re.S).group(1).split("\n")
assert "ranges before 0" in fv and "ranges after 4" in fv, ("the toggle draws one range per axis on main and on the region", fv)
assert re.search(r'<g class="mark region q-\w+" data-name="timestep &gt; solve"', dom), "the region is a mark, told apart"
assert "diamonds are regions" in dom
svg = re.search(r'<svg class="roofline run-roofline".*?</svg>', dom, re.S).group(0)
F = r"([-\d.e+]+)"
# the chart's own log-log axes, from its decade tick labels
grid = re.search(r'<g class="grid">(.*?)</g>', svg, re.S).group(1)
val = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
def axis(anchor):
    out = []
    for x, y, t in re.findall(r'<text x="%s" y="%s" text-anchor="%s">([^<]+)</text>' % (F, F, anchor), grid):
        parts = t.split()
        v = float(parts[0]) * (val[parts[1]] if len(parts) > 1 else 1)
        out.append((math.log10(v), float(x) if anchor == "middle" else float(y) - 3))
    (l0, p0), (l1, p1) = out[0], out[-1]
    return lambda v: p0 + (math.log10(v) - l0) * (p1 - p0) / (l1 - l0)
sx, sy = axis("middle"), axis("end")
reg = pl["regions"][0]
g = re.search(r'<g class="mark region [^"]*" data-name="timestep &gt; solve".*?</g>', svg, re.S).group(0)
lines = [tuple(map(float, m)) for m in re.findall(r'<line class="rank-range" x1="%s" x2="%s" y1="%s" y2="%s"' % (F, F, F, F), g)]
assert len(lines) == 2, ("the region's envelope of ranks: one line per axis", g)
I = [p["dram_intensity"]["value"] for p in reg["rank_points"]]
A = [p["achieved"]["value"] for p in reg["rank_points"]]
cx, cy = sx(reg["dram_intensity"]["value"]), sy(reg["achieved"]["value"])
(hx1, hx2, hy1, hy2), (vx1, vx2, vy1, vy2) = lines
assert abs(hx1 - sx(min(I))) < 0.05 and abs(hx2 - sx(max(I))) < 0.05 and abs(hy1 - cy) < 0.05 and abs(hy2 - cy) < 0.05, ("horizontal: the ranks' intensities", lines[0], sx(min(I)), sx(max(I)))
assert abs(vy1 - sy(min(A))) < 0.05 and abs(vy2 - sy(max(A))) < 0.05 and abs(vx1 - cx) < 0.05 and abs(vx2 - cx) < 0.05, ("vertical: the ranks' achieved rates", lines[1], sy(min(A)), sy(max(A)))
# every rank inside the chart (the axes take the ranks in)
assert 0 < min(hx1, hx2) and max(vy1, vy2) < 420 and min(vy1, vy2) > 0, lines
title = re.search(r'<title>(region timestep &gt; solve[^<]*)</title>', g).group(1)
assert "3 ranks span the lines" in title and "(ranks 2, 1)" in title, title
PY
echo "ok: the Run's roofline in the first view, placed by the payload's numbers"
