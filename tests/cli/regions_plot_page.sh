#!/usr/bin/env bash
# regions plot's timeline page runs its script in headless Chromium (title and note drawn); its own case, so a machine without Chromium skips it visibly (exit 2)
set -eu
export PYTHONDONTWRITEBYTECODE=1 # regions_mktrace.py is imported from the source tree
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
mkdir run
python3 "$NUNATAK_SOURCE_DIR/tests/cli/regions_mktrace.py" small run 2
"$NUNATAK" regions plot run -o timeline.html
chromium_run --virtual-time-budget=3000 --dump-dom "file://$tmp/timeline.html" >dom.html || true
grep -q '<h1 id="title">Timeline of run</h1>' dom.html || fail "the page's script did not run in chromium"
grep -q '18 calls\. Wheel: zoom' dom.html || fail "note not rendered"
echo ok
