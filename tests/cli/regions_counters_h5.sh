#!/usr/bin/env bash
# counters per region survive .spt -> .h5 (convert, merge, and .h5 -> .h5): inspect --json and the counters export of the .h5 equal those of the .spt; /rank0/perf_events holds the documented datasets; merge shifts lanes as the regions' and keeps every run's counters on a rank, a run's uncounted event unavailable on its rows; a malformed perf_events group is a clear error naming the dataset
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
mkdir a plain b
python3 "$mk" counters a/c_rank00000.spt
python3 "$mk" small plain 1
if ! "$NUNATAK" regions convert a -o a.h5 </dev/null >out.txt 2>err.txt; then
	if grep -q "built without HDF5\|regions.no_hdf5\|HDF5 module" err.txt; then
		echo "skip: no HDF5 support here: $(cat err.txt)"
		exit 2
	fi
	cat err.txt
	fail "convert failed"
fi
cat err.txt
command -v h5dump >/dev/null && command -v h5ls >/dev/null ||
	{ echo "skip: no h5dump/h5ls (hdf5-tools, scripts/deps.sh test)"; exit 2; }
if grep -q "counters" err.txt; then fail "convert warned about counters it now carries"; fi
csv() { "$NUNATAK" regions export "$1" --table counters --format csv -o - </dev/null; }
js() { "$NUNATAK" regions inspect "$1" --json </dev/null; }
csv a >a.csv
js a >a.json
grep -q '^0,1,inner,test::FLOP,flop,2,600000000,600000000,measured,$' a.csv || { cat a.csv; fail "unexpected .spt export"; }
csv a.h5 >a_h5.csv
cmp a.csv a_h5.csv || { diff a.csv a_h5.csv; fail "the .h5's counters differ from the .spt's"; }
js a.h5 >a_h5.json
python3 - a.json a_h5.json <<'PY'
import json, sys
a, b = (json.load(open(p))["counters"] for p in sys.argv[1:3])
assert a == b, (a, b)
assert a["backend"] == "test" and a["test_backend"] is True, a
cyc = {x["name"]: x for x in a["regions"]}["compute"]["events"]["cycles"]["inclusive"]
assert cyc["value"] is None and "no PMU" in cyc["reason"], cyc
PY
# the layout docs/formats.md gives
h5dump -g /rank0/perf_events a.h5 >dump.txt
for x in '"backend"' '"event_names"' '"event_kinds"' '"event_status"' '"event_reasons"' \
	'"region"' '"lane"' '"calls"' '"inclusive"' '"exclusive"'; do
	grep -q "$x" dump.txt || fail "no $x in /rank0/perf_events"
done
grep -q 'SIMPLE { ( 3, 2 ) / ( 3, 2 ) }' dump.txt || { cat dump.txt; fail "inclusive is not rows x counted events"; }
# .h5 -> .h5 keeps them
"$NUNATAK" regions convert a.h5 -o aa.h5 </dev/null >/dev/null 2>err.txt || { cat err.txt; fail "convert of an .h5 failed"; }
csv aa.h5 >aa.csv
cmp a.csv aa.csv || { diff a.csv aa.csv; fail "counters lost converting an .h5"; }
# merge: plain's single lane comes first, so a's lanes 0 and 1 become 1 and 2
"$NUNATAK" regions merge plain a -o pa.h5 </dev/null >out.txt 2>err.txt || { cat err.txt; fail "merge failed"; }
if grep -q "counters" err.txt; then cat err.txt; fail "a warning with one run carrying counters"; fi
csv pa.h5 >pa.csv
sed -e 's/^0,1,/0,2,/' -e 's/^0,0,/0,1,/' a.csv >want.csv
cmp want.csv pa.csv || { diff want.csv pa.csv; fail "merged counters' lanes"; }
# two runs with counters on rank 0: both are kept, b's lane after a's two;
# b did not count test::DRAM_BYTES, so its row has none (never a zero)
python3 - b/d_rank00000.spt <<PY
import sys
sys.path.insert(0, "$NUNATAK_SOURCE_DIR/tests/cli")
from regions_mktrace import spt, cntr
spt(sys.argv[1], 0, [("other", "o.c", 1, [(0, 1000, 0)])], version=3,
    ext=[cntr("test", [("test::FLOP", 4, None)], [(0, 0, 1, [(7, 5)])])])
PY
"$NUNATAK" regions merge a b -o ab.h5 </dev/null >out.txt 2>err.txt || { cat err.txt; fail "merge of two runs failed"; }
if grep -q "counters" err.txt; then cat err.txt; fail "a warning though every run's counters are kept"; fi
csv ab.h5 >ab.csv
{ cat a.csv
  echo '0,2,other,test::FLOP,flop,1,7,5,measured,'
  echo '0,2,other,cycles,cycles,1,,,unavailable,this machine exposes no counter for it (no PMU)'
  echo '0,2,other,test::DRAM_BYTES,B,1,,,unavailable,the rank did not count this event'
} >want_ab.csv
cmp want_ab.csv ab.csv || { diff want_ab.csv ab.csv; fail "the merged counters of a and b"; }
h5dump -d /rank0/perf_events/counted ab.h5 >counted.txt || { cat counted.txt; fail "no counted cells in a merged rank with different events"; }
tr -d ' \n' <counted.txt | grep -q 'DATA{(0,0):1,1,(1,0):1,1,(2,0):1,1,(3,0):1,0}' || { cat counted.txt; fail "counted cells"; }
# the merged profile converts again unchanged; one event list: no counted cells
"$NUNATAK" regions convert ab.h5 -o ab2.h5 </dev/null >/dev/null 2>err.txt || { cat err.txt; fail "convert of the merged .h5 failed"; }
csv ab2.h5 >ab2.csv
cmp ab.csv ab2.csv || { diff ab.csv ab2.csv; fail "merged counters lost in a second convert"; }
if h5ls pa.h5/rank0/perf_events | grep -q '^counted'; then fail "counted cells where every row counted every event"; fi
# the merged totals: inspect sums both runs' rows per region
js ab.h5 | python3 -c '
import json, sys
c = json.load(sys.stdin)["counters"]
r = {x["name"]: x for x in c["regions"]}
assert r["other"]["events"]["test::FLOP"]["inclusive"]["value"] == 7, r["other"]
assert r["other"]["events"]["test::DRAM_BYTES"]["inclusive"]["value"] is None, r["other"]
assert r["inner"]["events"]["test::FLOP"]["inclusive"]["value"] == 1600000000, r["inner"]
' || fail "inspect of the merged counters"
# no counters: no group, nothing in the export
"$NUNATAK" regions convert plain -o plain.h5 </dev/null >out.txt 2>err.txt || { cat err.txt; fail "convert failed"; }
if h5ls plain.h5/rank0 | grep -q perf_events; then fail "perf_events without counters"; fi
# a malformed group is a clear error naming the file and dataset
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c "import h5py" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "skip: no h5py to write a malformed perf_events group"; exit 2; }
"$py" - a.h5 bad.h5 <<'PY'
import shutil, sys
import h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    del f["rank0/perf_events/lane"]
    f["rank0/perf_events/lane"] = [0, 1]
PY
if "$NUNATAK" regions inspect bad.h5 </dev/null >out.txt 2>err.txt; then fail "a malformed perf_events was accepted"; fi
grep -q "bad.h5: /rank0/perf_events/lane: expected" err.txt || { cat err.txt; fail "unclear error"; }
echo ok
