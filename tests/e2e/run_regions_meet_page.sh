#!/bin/bash
# the page of a Run whose region traces met its samples (bundled heat example under real perf), drawn by headless Chromium: a Regions table on level 1 and sweep's finding names its region; its own case, so a machine without Chromium skips it visibly (exit 2)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$heat" ] || fail "examples/c not built ($heat)"
cd "$WORK"
"$NUNATAK" run -o "$WORK/run" -- "$heat" 256 1500 1 > out.txt 2> err.txt || fail "nunatak run failed"
grep -q "^.*    in timestep > solve > sweep [0-9]*%" err.txt || fail "sweep's finding names no region"
dump_dom "file://$WORK/run/report.html" "$WORK/dom.html"
grep -q '<h3>Regions</h3>' dom.html || fail "no Regions table"
grep -q 'class="in-regions">in timestep &gt; solve &gt; sweep' dom.html || fail "no regions under the finding"
echo ok
