#!/bin/bash
# `nunatak run --replay` (corpus workload-c-debug) writes report.html; headless Chromium draws it: hotspot names, Quality labels, what the report does not say, the detail with per-line shares; `report --html --no-source` writes report-no-source.html.
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
corpus="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64/workload-c-debug"
[ -d "$corpus" ] || { echo "FAIL: corpus entry $corpus missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The corpus holds no sources: write one at a source-mapped path so the
# detail has text to show.
mkdir -p "$tmp/src"
for i in $(seq 1 30); do echo "/* workload line $i */"; done >"$tmp/src/workload.c"
cd "$tmp"
"$NUNATAK" run --replay "$corpus" --source-map "/tmp/nunatak-capture-debug=$tmp/src" \
	--json -- ./workload >"$tmp/run.json" 2>"$tmp/err.txt"
report=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"])' "$tmp/run.json")
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$tmp/run.json")
[ "$report" = "$run/report.html" ] || { echo "FAIL: report is '$report', expected $run/report.html" >&2; exit 1; }
[ -s "$report" ] || { echo "FAIL: $report not written" >&2; exit 1; }
expect "$tmp/err.txt" "Report: $report"

dump_dom "file://$report" "$tmp/dom.html"
expect "$tmp/dom.html" \
	'1 Hotspot above the statistical floor holds 99.6% of the sampled time.' \
	'216 samples of cycles' 'sampled seconds unavailable (the time base is not a clock)' \
	'<span class="hs-name">main</span>' '</span>measured</span>' \
	'<span class="val q-unavailable"' '</span>unavailable</span>' \
	'no flops_dp raw counter in this Run' \
	'What this report does not say' \
	'How many FLOPs each Hotspot moves: this Run has no FLOP counter' \
	'0.3% of the sampled time is in code left unresolved (module+offset, no function name): [unknown] 0.3%' \
	'Unresolved code by module' '<td title="[unknown]">[unknown]</td>' \
	'the Machine carries no flops_dp or dram_bandwidth Ceiling' \
	'<tr class="others">' '3 Hotspots below the floor of 30 samples' \
	'By inline frame' '<span class="hs-name">reduce</span>' \
	'line 11 of workload.c holds 51.0% of this Hotspot'
reject "$tmp/dom.html" 'class="fatal"' 'undefined' 'NaN' '>null<'
# One process, one thread: the imbalance over one Locus is 1.00x, measured
# (the reference's figure, issue 24); GFLOP/s and DRAM intensity are
# unavailable for every Hotspot (no FLOP counter), so no column of
# "unavailable": one sentence with why.
python3 - "$tmp/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
inv = dom.split('id="inventory"', 1)[1]
heads = [re.sub(r"<[^>]+>", "", h).strip(" \u25be\u25b4") for h in re.findall(r"<th[^>]*>(.*?)</th>", inv.split("</thead>")[0], re.S)]
assert heads == ["Hotspot", "Share", "%", "Imbalance", "Quality", "Resolution"], heads
row = re.search(r'<tr class="hs-row"[^>]*data-go="0".*?</tr>', inv, re.S).group(0)
assert "unavailable" not in re.sub(r"<[^>]+>", "", row), row
note = re.sub(r"<[^>]+>", "", re.search(r'<p class="muted gone-columns">(.*?)</p>', inv, re.S).group(1))
assert note == ("Unavailable for every Hotspot, so not drawn as columns: GFLOP/s and DRAM "
                "intensity (no flops_dp raw counter in this Run)."), note
PY

dump_dom "file://$report#hotspot-0" "$tmp/detail.html"
expect "$tmp/detail.html" '<section class="level level3" id="detail" data-hotspot="0">' \
	'<h3>Off the roofline</h3>' \
	'<tr class="hot"><td class="ln">10</td>' '<tr class="hot"><td class="ln">11</td>' \
	'/* workload line 11 */' '51.0%' '49.0%' 'Ventilation by inline frame'

# Regenerated for sharing: source text withheld, shares kept.
"$NUNATAK" report --html --no-source "$run" >/dev/null 2>"$tmp/err2.txt"
expect "$tmp/err2.txt" "Report: $run/report-no-source.html"
reject "$run/report-no-source.html" 'workload line 11'
dump_dom "file://$run/report-no-source.html#hotspot-0" "$tmp/ns.html"
expect "$tmp/ns.html" 'source text withheld by --no-source' '51.0%'
reject "$tmp/ns.html" '/* workload line'
# `report --html` rewrites the page the run wrote, identically.
cp "$report" "$tmp/first.html"
"$NUNATAK" report --html "$run" >/dev/null 2>&1
cmp -s "$report" "$tmp/first.html" || { echo "FAIL: report --html differs from the page run wrote" >&2; exit 1; }

mkdir -p "$NUNATAK_BUILD_DIR/test-artifacts"
screenshot "file://$report#hotspot-0" "$NUNATAK_BUILD_DIR/test-artifacts/report_html_replay.png" || true
echo "ok: replayed Run's report drawn and checked"
