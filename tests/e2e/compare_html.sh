#!/bin/bash
# report-compare.html beside B, drawn by headless Chromium: both Runs side by side, heavy_seventy slower (2x build) and light_thirty without a significant change, the interval's Quality and basis, the rebuild flag; nothing fails to draw. Real perf Runs of the 70/30 program.
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
. "$NUNATAK_SOURCE_DIR/tests/fixtures/compare/runs.sh"
need_perf
build_two_funcs
make_run base a
make_run slow b
cd "$WORK"
"$NUNATAK" compare --fail-on-regression 10 "$WORK/a" "$WORK/b" >table.txt 2>err.txt && rc=0 || rc=$?
[ "$rc" = 120 ] || { cat err.txt >&2; echo "FAIL: exit $rc, expected 120" >&2; exit 1; }
page="$WORK/b/report-compare.html"
[ -s "$page" ] || { echo "FAIL: $page not written" >&2; exit 1; }
expect err.txt "Report: $page"
expect "$page" "default-src 'none'"
reject "$page" 'http://' 'https://' 'src=' 'href=' '<link'

dump_dom "file://$page" "$WORK/dom.html"
expect "$WORK/dom.html" 'A (before)' 'B (after)' "$WORK/a" "$WORK/b" \
	'<span class="it-name">heavy_seventy</span>' '<span class="it-name">light_thirty</span>' \
	'<td class="verdict">slower</td>' '<td class="verdict">no significant change</td>' \
	'How the intervals were computed' 'exact conditional interval of two Poisson rates' \
	'sampling error only' '</span>estimated</span>' 'was rebuilt between A and B' \
	'Total B/A' '<svg class="ivplot"'
reject "$WORK/dom.html" 'class="fatal"' 'undefined' 'NaN' '>null'
python3 - "$WORK/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<tr class="it dir-(\w+)" data-name="([^"]*)"', dom)
names = [n for _, n in rows]
# the program's two functions, heaviest change first; a busy machine can add
# a kernel function above the floor in one Run only (copy_mc_enhanced_fast_string
# under ASan at load 13), drawn as its own row wherever its change ranks it
own = [n for n in names if n in ("heavy_seventy", "light_thirty")]
assert own == ["heavy_seventy", "light_thirty"], names
assert ("slower", "heavy_seventy") in rows and ("same", "light_thirty") in rows, rows
assert re.search(r'data-name="heavy_seventy".*?<td class="num ratio">(1\.[7-9]\d|2\.[0-2]\d)\u00d7</td>', dom, re.S), \
    "heavy_seventy's ratio is not drawn between 1.7 and 2.3"
PY
echo ok
