#!/usr/bin/env bash
# regions export and tree: every format's exact content, lanes, recursion, and complete-or-absent output files
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 is needed to write test traces"; exit 2; }
mkdir run
python3 "$mk" small run 2
R() { "$NUNATAK" regions "$@"; } # the build path may hold spaces

# Collapsed stacks: exclusive integer ns per call path, rank prefix frame.
R export run -f collapsed -o out.folded
grep -qx "rank 0;main;solve;dot 38000" out.folded || fail "collapsed: $(cat out.folded)"
grep -qx "rank 1;main 22000" out.folded || fail "collapsed main"
[ "$(wc -l <out.folded)" = 10 ] || fail "collapsed line count"

# Tidy CSV: one row per call, exact seconds from the run's first entry.
R export run -f csv -o events.csv
[ "$(wc -l <events.csv)" = 19 ] || fail "csv rows"
head -1 events.csv | grep -qx "name,rank,lane,call_index,start,end,duration,exclusive,depth" || fail "csv header"
grep -qx "dot,1,0,3,0.000122000,0.000140000,0.000018000,0.000018000,2" events.csv || fail "csv row: $(grep '^dot,1' events.csv)"
R export run -f csv --table summary -o sum.csv
grep -q "^solve,4,0.000240000,0.000069000,0.000240000," sum.csv || fail "summary csv: $(cat sum.csv)"

# Chrome trace: X events with exact decimal microseconds, metadata naming ranks.
R export run -f chrome -o trace.json
python3 - trace.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["displayTimeUnit"] == "ns"
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
m = [e for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
assert len(x) == 18 and sorted(e["args"]["name"] for e in m) == ["rank 0", "rank 1"]
dot = [e for e in x if e["name"] == "dot" and e["pid"] == 1]
assert [(e["ts"], e["dur"]) for e in dot] == [(22.0, 18.0), (40.0, 20.0), (60.0, 20.0), (122.0, 18.0)], dot
PY
grep -q '"ts":122.000,"dur":18.000' trace.json || fail "chrome decimals"

# speedscope: one evented profile per rank, LIFO events, frames deduplicated.
R export run -f speedscope -o prof.speedscope.json
python3 - prof.speedscope.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
names = [f["name"] for f in d["shared"]["frames"]]
assert sorted(names) == ["axpy", "dot", "init", "main", "solve"], names
assert [p["name"] for p in d["profiles"]] == ["rank 0", "rank 1"]
for p in d["profiles"]:
    stack, last = [], -1
    for e in p["events"]:
        assert e["at"] >= last; last = e["at"]
        if e["type"] == "O": stack.append(e["frame"])
        else: assert stack.pop() == e["frame"]
    assert not stack and len(p["events"]) == 18
    assert p["startValue"] == 0 and p["unit"] == "nanoseconds"
PY

# Lanes (v3): one profile per thread, overlapping threads are fine.
python3 "$mk" threads th_rank00000.spt
R export th_rank00000.spt -f speedscope -o th.json
python3 -c "
import json; d = json.load(open('th.json'))
assert [p['name'] for p in d['profiles']] == ['rank 0 thread 0 (main)', 'rank 0 thread 1 (worker)'], d['profiles']"
R tree th_rank00000.spt --paths >tree.txt
grep -qE "^ +3 ns +3 ns +6\.0 +1  work > work > inner$" tree.txt || fail "tree lane 0: $(cat tree.txt)"
grep -q "rank 0, lane 1 (worker)" tree.txt || fail "tree lane header"

# Recursion (v1, big-endian): distinct call paths in tree and collapsed.
python3 "$mk" recursion rec_rank00000.spt
R export rec_rank00000.spt -f collapsed -o rec.folded
grep -qx "rank 0;fib;fib;fib;leaf 10" rec.folded || fail "recursion collapsed: $(cat rec.folded)"
grep -qx "rank 0;fib;fib 40" rec.folded || fail "recursion collapsed fib>fib"
R tree rec_rank00000.spt --json >rec.json
python3 -c "
import json; n = json.load(open('rec.json'))['ranks'][0]['lanes'][0]['nodes']
assert [x['path'] for x in n] == ['fib', 'fib > fib', 'fib > fib > fib', 'fib > fib > fib > leaf'], n
assert [x['exclusive_ns'] for x in n] == [30, 40, 20, 10], n"
R tree run --rank 1 --depth 1 >d1.txt
grep -q "^rank 1: " d1.txt && ! grep -q "dot" d1.txt && grep -q "    solve" d1.txt || fail "--depth: $(cat d1.txt)"

# Output files are complete or absent: a failing export leaves nothing behind.
python3 "$mk" overlap ov_rank00000.spt
if R export ov_rank00000.spt -f speedscope -o bad.json 2>/dev/null; then fail "export of a bad trace succeeded"; fi
[ ! -e bad.json ] || fail "partial output left behind"
[ -z "$(ls -A | grep '\.tmp\.')" ] || fail "temporary file left behind: $(ls -A)"
echo previous >keep.json
if R export ov_rank00000.spt -f chrome -o keep.json 2>/dev/null; then fail "bad export succeeded"; fi
[ "$(cat keep.json)" = previous ] || fail "a failed export clobbered an existing file"
if R export run -f bogus -o x.json 2>err.txt; then fail "bad format accepted"; fi
grep -q "unknown export format 'bogus'" err.txt || fail "format message"
echo ok
