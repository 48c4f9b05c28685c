#!/usr/bin/env bash
# each call's counts (the trace's CCAL section), from the test-only backend's known counts: every call of every region and lane has its exact inclusive counts in the order recorded, matched to the trace's calls by start, across several call buffers, with the in-memory and the streamed (on-disk) finalize alike; inspect gives min/median/max/mean per region and event (text and --json, schema-valid), export --table counter-calls one row per call and event; an unfinished trace with count frames is recovered past them; a trace without the section, or with one of a newer version, reads as before
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
SP=${SCOPE_PROFILER_BIN:?}
N=${NUNATAK:?}
P="$B/tests/programs/ctr_calls_prog"
[ -x "$P" ] || { echo "FAIL: $P not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL SCOPE_PROFILER_PREFIX \
	SCOPE_PROFILER_EVENTS SCOPE_PROFILER_FINALIZE_CHUNK || true
fail() { echo "FAIL: $*" >&2; exit 1; }
EV=test::FLOP,test::DRAM_BYTES
CALLS=40000 # 50011 calls on the main thread's lane: four call buffers

# check DIR: the raw section against the known counts, read by the
# independent reader of docs/formats.md
check() {
	python3 - "$1"/c_rank00000.spt "$S/tests/e2e" "$CALLS" <<'PY'
import sys
from collections import defaultdict
sys.path.insert(0, sys.argv[2])
from lib_reader import read_spt
n = int(sys.argv[3])
t = read_spt(sys.argv[1])
names = [r["name"] for r in t["regions"]]
cc = t["ext"]["call_counts"]
assert len(cc) == sum(len(r["starts"]) for r in t["regions"]) == n + n // 4 + 11, len(cc)
by = defaultdict(list)
for c in cc:
    assert c["region"] >= 0, c  # no padding: the file held every call
    by[names[c["region"]]].append(c)
want = {
    "step": [[i + 1 + (1000 if i % 4 == 0 else 0), 3 * (i + 1)] for i in range(n)],
    "inner": [[1000, 0]] * (n // 4),
    "outer": [[12, 0]],  # closed with inner open: inner discarded, its 7 flop inclusive
    "work": [[100 * (j + 1), 1] for j in range(10)],
}
for name, vals in want.items():
    got = [c["values"] for c in by[name]]
    assert got == vals, (name, got[:5], vals[:5], len(got), len(vals))
    lane = 1 if name == "work" else 0
    assert {c["lane"] for c in by[name]} == {lane}, name
    r = t["regions"][names.index(name)]
    # each entry names a call of the trace: the same starts, on the same lanes
    assert sorted(c["start"] for c in by[name]) == sorted(r["starts"]), name
    assert set(r["lanes"]) == {lane}, name
print("calls", len(cc), "step", by["step"][0]["values"], by["step"][-1]["values"])
PY
}

echo "== in-memory finalize"
mkdir m
SCOPE_PROFILER_PREFIX="$tmp/m/c" SCOPE_PROFILER_EVENTS=$EV "$P" $CALLS </dev/null >m.out 2>m.err || { cat m.err; fail "the program failed"; }
grep -q '^done$' m.out || fail "the program did not finish"
check m
echo "== streamed finalize (chunks of 1000 calls, sorted on disk)"
mkdir s
SCOPE_PROFILER_FINALIZE_CHUNK=1000 SCOPE_PROFILER_PREFIX="$tmp/s/c" SCOPE_PROFILER_EVENTS=$EV "$P" $CALLS \
	</dev/null >s.out 2>s.err || { cat s.err; fail "the program failed (streamed)"; }
check s
cmp m/c_rank00000.spt s/c_rank00000.spt >/dev/null 2>&1 || true # stamps differ between runs; the checks above are the test

echo "== inspect: the spread over each region's calls"
"$SP" inspect m </dev/null >m.txt 2>&1 || { cat m.txt; fail "inspect failed"; }
"$SP" inspect --json m </dev/null >m.json || fail "inspect --json failed"
python3 - m.json m.txt "$CALLS" <<'PY'
import json, re, statistics, sys
c = json.load(open(sys.argv[1]))["counters"]
txt = open(sys.argv[2]).read()
n = int(sys.argv[3])
assert c["ranks_with_call_counts"] == 1 and c["call_counts_not_kept"] == 0, c
r = {x["name"]: x["events"] for x in c["regions"]}
step = sorted(i + 1 + (1000 if i % 4 == 0 else 0) for i in range(n))
for name, ev, vals, unit in (("step", "test::FLOP", step, "flop/call"),
                             ("step", "test::DRAM_BYTES", [3 * (i + 1) for i in range(n)], "B/call"),
                             ("work", "test::FLOP", [100 * (j + 1) for j in range(10)], "flop/call"),
                             ("outer", "test::FLOP", [12], "flop/call")):
    sp = r[name][ev]["call_spread"]
    vals = sorted(vals)
    want = {"calls": len(vals), "min": vals[0], "median": vals[(len(vals) - 1) // 2],
            "max": vals[-1], "unit": unit}
    assert {k: sp[k] for k in want} == want, (name, ev, sp, want)
    assert abs(sp["mean"] - statistics.fmean(vals)) <= 1e-9 * sp["mean"], (sp, statistics.fmean(vals))
    # the sums and the calls agree
    assert r[name][ev]["inclusive"]["value"] == sum(vals), (name, ev)
    row = re.search(r"^%s\s+%s\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s" % (name, re.escape(ev)),
                    txt.split("Per call (each call's inclusive count):")[1], re.M)
    assert row and list(map(int, row.groups())) == [len(vals), vals[0], want["median"], vals[-1]], (name, ev, row)
print("spread ok")
PY

echo "== export --table counter-calls: one row per call and event"
"$N" regions export m --table counter-calls --format csv -o calls.csv </dev/null || fail "export csv failed"
"$N" regions export m --table counter-calls --format json -o calls.json </dev/null || fail "export json failed"
python3 - calls.csv calls.json "$CALLS" <<'PY'
import csv, json, sys
n = int(sys.argv[3])
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
js = json.load(open(sys.argv[2]))
assert len(rows) == len(js) == 2 * (n + n // 4 + 11), (len(rows), len(js))
assert list(rows[0]) == ["rank", "lane", "region", "start_ns", "event", "unit", "value"], rows[0]
for a, b in zip(rows, js):
    assert (a["region"], int(a["start_ns"]), a["event"], int(a["value"])) == \
        (b["region"], b["start_ns"], b["event"], b["value"]), (a, b)
steps = [int(x["value"]) for x in rows if x["region"] == "step" and x["event"] == "test::FLOP"]
assert steps == [i + 1 + (1000 if i % 4 == 0 else 0) for i in range(n)], steps[:5]  # by start: the loop's order
work = [x for x in rows if x["region"] == "work"]
assert {x["lane"] for x in work} == {"1"} and work[-1]["value"] == "1" and work[-2]["value"] == "1000", work[-2:]
print("export ok")
PY

echo "== an unfinished trace: recovered past the count frames"
mkdir x
SCOPE_PROFILER_PREFIX="$tmp/x/c" SCOPE_PROFILER_EVENTS=$EV "$P" $CALLS exit </dev/null >x.out 2>x.err || { cat x.err; fail "the program failed (exit)"; }
"$N" regions inspect --json x </dev/null >x.json 2>x.err || { cat x.err; fail "inspect of the cut trace failed"; }
python3 - x.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
calls = sum(r["calls"] for r in d["regions"] if r["name"] in ("step", "inner"))
# three full buffers of 16384 are always written (a flush a second may add
# more); stopping at the first count frame would leave at most 16384
assert calls >= 3 * 16384, calls
print("recovered", calls)
PY

echo "== a trace without per-call counts, and one with a newer CCAL version"
mkdir old new
python3 "$S/tests/cli/regions_mktrace.py" counters old/c_rank00000.spt
python3 - old/c_rank00000.spt new/c_rank00000.spt "$S/tests/cli" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[3])
import regions_mktrace as mk
data = open(sys.argv[1], "rb").read()
i = data.index(b"SPTEXT01")
total = struct.unpack_from("<q", data, i + 8)[0]
sec = struct.pack("<ii", 2, 99) + b"a later layout"
body = data[i + 16:] + struct.pack("<II", 0x4c414343, len(sec)) + sec
open(sys.argv[2], "wb").write(data[:i] + b"SPTEXT01" + struct.pack("<q", len(body)) + body)
PY
for d in old new; do
	"$SP" inspect "$d" </dev/null >"$d.txt" 2>&1 || { cat "$d.txt"; fail "inspect of $d failed"; }
	"$SP" inspect --json "$d" </dev/null >"$d.json" || fail "inspect --json of $d failed"
	python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
assert c["ranks_with_call_counts"] == 0, c
for r in c["regions"]:
    for e in r["events"].values():
        assert e["call_spread"] is None, e
assert {r["name"]: r["events"]["test::FLOP"]["inclusive"]["value"] for r in c["regions"]} == \
    {"compute": 4000000000, "inner": 1600000000}, c
' "$d.json" || fail "$d: sums or call_spread"
done
grep -q "no per-call counts: the traces keep sums only" old.txt || { cat old.txt; fail "old: not said"; }
grep -q "per-call counts of a newer trace format (version 2) were skipped" new.txt || { cat new.txt; fail "new: not said"; }
[ "$("$N" regions export old --table counter-calls --format csv -o - </dev/null)" = "rank,lane,region,start_ns,event,unit,value" ] ||
	fail "rows of per-call counts from a trace without them"

# the --json documents against their schema
py=""
for c in python3 /usr/bin/python3; do
	if "$c" -c "import jsonschema" 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with jsonschema (python3-jsonschema, scripts/deps.sh test)"; exit 2; }
"$py" - "$S/docs/schemas/regions-summary.json" m.json old.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for p in sys.argv[2:]:
    jsonschema.Draft202012Validator(schema).validate(json.load(open(p)))
PY
echo ok
