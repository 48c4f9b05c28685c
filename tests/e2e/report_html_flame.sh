#!/bin/bash
# report.html's flame graph in headless Chromium, from the replay of workload-c-stacks (fp call stacks): icicle widths are the stacks' time shares, click zooms, the path zooms out; the page fetches nothing
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
entry="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64/workload-c-stacks"
cd "$tmp"
"$NUNATAK" run -q --replay "$entry" -o "$tmp/run" -- ./workload 2>"$tmp/err.txt" || {
	cat "$tmp/err.txt"; echo "FAIL: replay"; exit 1; }
page="$tmp/run/report.html"
[ -s "$page" ] || { echo "FAIL: no report.html"; exit 1; }
# self-contained: no script, style or image from anywhere
! grep -Eq '(src|href)="(https?:)?//' "$page" || { echo "FAIL: the page loads something"; exit 1; }
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/report/inject.py" "$page" "$NUNATAK_SOURCE_DIR/tests/fixtures/report/flame_interact.js" "$tmp/interact.html"
chromium_run --virtual-time-budget=5000 --dump-dom "file://$tmp/interact.html" >"$tmp/interact.dom"
grep -q '<pre id="selftest">SELFTEST OK' "$tmp/interact.dom" || {
	echo "FAIL: flame interaction" >&2
	sed -n '/<pre id="selftest">/,/<\/pre>/p' "$tmp/interact.dom" >&2
	exit 1
}
sed -n '/<pre id="selftest">/,/<\/pre>/p' "$tmp/interact.dom" | sed 's/<[^>]*>//g'
echo ok
