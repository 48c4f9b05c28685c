#!/usr/bin/env bash
# regions inspect reads the .spt counter section (both byte orders): sums per region and lane, rates per call and per second, FLOP/s, bytes/s and intensity checked against a hand computation, an unavailable event null with its reason, a corrupt section a clear error
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"

for order in "<" ">"; do
	rm -rf run && mkdir run
	python3 "$mk" counters run/c_rank00000.spt "$order"
	"$NUNATAK" regions inspect run --json </dev/null >s.json
	"$NUNATAK" regions inspect run </dev/null >s.txt
	python3 - s.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
assert c["backend"] == "test" and c["test_backend"] is True, c
r = {x["name"]: x for x in c["regions"]}
# compute: one 2 ms call, 4e9 flop and 2e9 bytes inclusive (3e9 / 1.5e9 exclusive)
comp = r["compute"]
assert comp["time"]["value"] == 2000000, comp["time"]
f, b = comp["events"]["test::FLOP"], comp["events"]["test::DRAM_BYTES"]
assert (f["inclusive"]["value"], f["exclusive"]["value"]) == (4e9, 3e9), f
assert (b["inclusive"]["value"], b["exclusive"]["value"]) == (2e9, 1.5e9), b
assert f["per_second"]["value"] == 4e9 / 2e-3 and f["per_second"]["unit"] == "flop/s", f
d = comp["derived"]
assert d["flop_per_second"]["value"] == 2e12 and d["flop_per_second"]["quality"] == "measured", d
assert d["bytes_per_second"]["value"] == 1e12 and d["intensity"]["value"] == 2.0, d
# cycles were unavailable: IPC is unavailable with the reason, never zero
assert d["ipc"]["value"] is None and d["ipc"]["quality"] == "unavailable", d
assert "no instructions event" in d["ipc"]["reason"], d
cyc = comp["events"]["cycles"]["inclusive"]
assert cyc["value"] is None and "no PMU" in cyc["reason"], cyc
# inner: 3 calls over 2 lanes (0.5 + 0.3 + 0.3 ms), 1.6e9 flop, 7e8 bytes
inner = r["inner"]
assert inner["time"]["value"] == 1100000, inner["time"]
fi = inner["events"]["test::FLOP"]
assert fi["inclusive"]["value"] == 1.6e9 and fi["calls"] == 3, fi
assert abs(fi["per_call"]["value"] - 1.6e9 / 3) < 1e-3, fi
di = inner["derived"]
assert abs(di["flop_per_second"]["value"] - 1.6e9 / 1.1e-3) < 1, di
assert abs(di["intensity"]["value"] - 1.6e9 / 7e8) < 1e-12, di
lanes = sorted((l["lane"], l["calls"], l["inclusive"]["test::FLOP"], l["inclusive"]["cycles"])
               for l in inner["lanes"])
assert lanes == [(0, 1, 1000000000, None), (1, 2, 600000000, None)], lanes
ev = {e["name"]: e for e in c["events"]}
assert ev["cycles"]["quality"] == "unavailable" and ev["test::FLOP"]["quality"] == "measured", ev
PY
	grep -q "the TEST backend's made-up counts" s.txt
	grep -q "^compute  *intensity  *2 flop/B (measured)" s.txt
	grep -q "^cycles: unavailable on 1 rank (rank 0: this machine exposes no counter for it (no PMU))" s.txt
done

echo "== inspect's filters apply to the counters too"
"$NUNATAK" regions inspect run --exclude '^inner$' --json </dev/null >x.json
python3 -c 'import json,sys; c = json.load(open(sys.argv[1]))["counters"]; assert [r["name"] for r in c["regions"]] == ["compute"], c' x.json
"$NUNATAK" regions inspect run --include inner </dev/null >x.txt
grep -q "^inner  *test::FLOP" x.txt
if grep -q "^compute  *test::FLOP" x.txt; then fail "an excluded region's counters shown"; fi

echo "== export --table counters: tidy rows, unavailable events empty with the reason"
"$NUNATAK" regions export run --table counters -f csv </dev/null >c.csv
"$NUNATAK" regions export run --table counters -f json </dev/null >c.json
python3 - c.csv c.json <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3 * 3, rows  # 3 rows (region, lane) x 3 events
r = {(x["region"], x["lane"], x["event"]): x for x in rows}
a = r[("inner", "1", "test::FLOP")]
assert (a["calls"], a["inclusive"], a["exclusive"], a["unit"], a["quality"]) == \
    ("2", "600000000", "600000000", "flop", "measured"), a
c = r[("compute", "0", "cycles")]
assert c["inclusive"] == "" and c["quality"] == "unavailable" and "no PMU" in c["reason"], c
j = json.load(open(sys.argv[2]))
assert len(j) == 9 and {x["quality"] for x in j} == {"measured", "unavailable"}, j
assert [x for x in j if x["event"] == "cycles"][0]["inclusive"] is None, j
PY
if "$NUNATAK" regions export run --table counters -f chrome </dev/null 2>err.txt; then fail "chrome counters"; fi
grep -q "table counters needs --format csv or json" err.txt

echo "== a row naming a region the trace lacks: a clear error with the byte offset"
python3 - <<PY
import sys; sys.path.insert(0, "$NUNATAK_SOURCE_DIR/tests/cli"); import regions_mktrace as m
m.spt("bad_rank00000.spt", 0, [("a", None, -1, [(0, 10)])], version=2,
      ext=[m.cntr("perf_event", [("page-faults", 0, None)], [(5, 0, 1, [(1, 1)])])])
PY
if "$NUNATAK" regions inspect bad_rank00000.spt </dev/null >bad.out 2>bad.err; then fail "accepted a bad row"; fi
cat bad.err
grep -q "bad_rank00000.spt: byte [0-9]*: expected a counter row of one of the 1 regions on one of the 1 lanes, found region 5" bad.err

echo "== a truncated section: trace.truncated, not a crash"
python3 - <<PY
import sys, struct; sys.path.insert(0, "$NUNATAK_SOURCE_DIR/tests/cli"); import regions_mktrace as m
tag, p = m.cntr("perf_event", [("page-faults", 0, None)], [(0, 0, 1, [(1, 1)])])
p = p[:-8] # the last value cut, the section length says so
m.spt("cut_rank00000.spt", 0, [("a", None, -1, [(0, 10)])], version=2, ext=[(tag, p)])
PY
if "$NUNATAK" regions inspect cut_rank00000.spt </dev/null >cut.out 2>cut.err; then fail "accepted a cut section"; fi
cat cut.err
grep -q "truncated: expected 1 counter rows of 32 bytes" cut.err
echo ok
