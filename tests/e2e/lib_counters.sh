#!/usr/bin/env bash
# libscope_profiler counters per region (perf_event software events): 4096 fresh pages are 4096 page faults (+-1 %), 0.3 s of CPU is that task-clock (no more than the program's own task-clock around the region, no less than 95 % of the region's own CPU time), nested inclusive = exclusive + children, threads keep their own counts, an unknown event is named at start and unavailable in the trace while the program runs
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
SP=${SCOPE_PROFILER_BIN:?}
P="$B/tests/programs/counters_prog"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL SCOPE_PROFILER_PREFIX \
	SCOPE_PROFILER_EVENTS || true

# A kernel or container that refuses perf_event_open (seccomp, paranoid 3)
# makes every event unavailable: the library says so; this test skips.
mkdir "$tmp/probe"
SCOPE_PROFILER_PREFIX="$tmp/probe/p" SCOPE_PROFILER_EVENTS=page-faults "$P" faults \
	</dev/null >"$tmp/probe.out" 2>"$tmp/probe.err"
if grep -q "cannot be counted" "$tmp/probe.err"; then
	echo "skip: perf_event_open refuses software events here: $(cat "$tmp/probe.err")"
	exit 2
fi

inspect() { "$SP" inspect --json "$1" </dev/null >"$1.json"; }

echo "== 4096 fresh pages: 4096 page faults +-1 %, named perf::PAGE-FAULTS (PAPI's spelling)"
mkdir "$tmp/f"
SCOPE_PROFILER_PREFIX="$tmp/f/f" SCOPE_PROFILER_EVENTS=perf::PAGE-FAULTS "$P" faults </dev/null
inspect "$tmp/f"
"$SP" inspect "$tmp/f" </dev/null | tee "$tmp/f.txt"
grep -q "^touch .*perf::PAGE-FAULTS .*measured" "$tmp/f.txt"
python3 - "$tmp/f.json" "$S/tests/e2e" "$tmp/f/f_rank00000.spt" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from lib_reader import read_spt  # the independent reader of docs/formats.md
c = json.load(open(sys.argv[1]))["counters"]
raw = read_spt(sys.argv[3])["ext"]["counters"]
assert raw["backend"] == "perf_event" and raw["events"][0]["counted"], raw
assert raw["rows"][0]["sums"]["perf::PAGE-FAULTS"]["inclusive"] == \
    c["regions"][0]["events"]["perf::PAGE-FAULTS"]["inclusive"]["value"], (raw, c)
assert c["backend"] == "perf_event" and not c["test_backend"], c
ev = c["regions"][0]["events"]["perf::PAGE-FAULTS"]
v = ev["inclusive"]["value"]
assert ev["inclusive"]["quality"] == "measured", ev
assert abs(v - 4096) <= 0.01 * 4096, v
assert ev["calls"] == 1 and ev["per_call"]["value"] == v, ev
# per second divides by the region's own inclusive time
t = c["regions"][0]["time"]["value"]
assert abs(ev["per_second"]["value"] - v / (t / 1e9)) <= 1e-9 * ev["per_second"]["value"], (ev, t)
print("page faults", v)
PY

echo "== the heat example's first region (assemble, faulting its grids in), page-faults second in a group of two: counted from the first region on"
mkdir "$tmp/g"
SCOPE_PROFILER_PREFIX="$tmp/g/g" SCOPE_PROFILER_EVENTS=task-clock,page-faults "$B/examples/c/example_heat" 512 5 0 </dev/null >/dev/null
inspect "$tmp/g"
python3 - "$tmp/g.json" <<'PY'
import json, sys
rows = {r["name"]: r["events"] for r in json.load(open(sys.argv[1]))["counters"]["regions"]}
ev = rows["assemble"]
# A sibling added to a group already counting on the thread counted nothing
# until the thread was next scheduled in: 0 faults there, marked measured.
# assemble writes a fresh 512 x 512 grid of doubles: 512 pages (525 faults
# seen every time; 0 to 453 before the group was enabled whole).
assert ev["page-faults"]["inclusive"]["value"] >= 500, ev
assert ev["task-clock"]["inclusive"]["value"] > 0, ev
PY

echo "== sp_set_events() before the first region does the same; the environment wins over it"
mkdir "$tmp/c" "$tmp/w"
SCOPE_PROFILER_PREFIX="$tmp/c/c" "$P" faults page-faults </dev/null >"$tmp/c.out"
grep -q "^sp_set_events 0$" "$tmp/c.out"
inspect "$tmp/c"
python3 - "$tmp/c.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["counters"]["regions"][0]["events"]["page-faults"]["inclusive"]["value"]
assert abs(v - 4096) <= 0.01 * 4096, v
PY
SCOPE_PROFILER_PREFIX="$tmp/w/w" SCOPE_PROFILER_EVENTS=context-switches "$P" faults page-faults \
	</dev/null >"$tmp/w.out" 2>"$tmp/w.err"
grep -q "^sp_set_events -114$" "$tmp/w.out" # -EALREADY
grep -q "ignored: events were already set" "$tmp/w.err"
mkdir "$tmp/l"
SCOPE_PROFILER_PREFIX="$tmp/l/l" "$P" late page-faults </dev/null >"$tmp/l.out" 2>"$tmp/l.err"
grep -q "^sp_set_events -16$" "$tmp/l.out" # -EBUSY: a region was entered
grep -q "ignored: a region was already entered; call it before the first region" "$tmp/l.err"
inspect "$tmp/l"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["counters"] is None' "$tmp/l.json"

echo "== 0.3 s of CPU: task-clock within the program's own task-clock around the region, and at least 95 % of the region's CPU time by the thread's clock"
mkdir "$tmp/b"
SCOPE_PROFILER_PREFIX="$tmp/b/b" SCOPE_PROFILER_EVENTS=task-clock "$P" burn </dev/null >"$tmp/b.out"
inspect "$tmp/b"
python3 - "$tmp/b.json" "$tmp/b.out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
out = open(sys.argv[2]).read()
cpu = int(out.split("cpu_ns ")[1].split()[0])
own = out.split("task_clock_ns ")[1].split("\n")[0]
assert own.isdigit(), "the program could not read its own task-clock: " + own
own = int(own)
v = c["regions"][0]["events"]["task-clock"]["inclusive"]["value"]
print("task-clock %.0f ns; the program's own task-clock around the region %d ns; "
      "the thread's CPU clock %d ns (own task-clock - CPU clock: %+.1f ms; "
      "a hypervisor's steal makes it positive)" % (v, own, cpu, (own - cpu) / 1e6))
assert cpu >= 300e6, cpu
# Same kernel clock, the library's window inside the program's: never more.
# task-clock runs on the scheduler's clock and in a virtual machine counts
# the time the hypervisor took from the thread's CPU (steal), which the
# thread's CPU clock leaves out: 319.5 ms against 300.1 ms was seen on a
# loaded VM, so the CPU clock bounds it from below only.
assert v <= own, (v, own)
assert v >= 0.95 * cpu, (v, cpu)
PY

echo "== nested: inclusive = exclusive + children's inclusive, each region its own pages"
mkdir "$tmp/n"
SCOPE_PROFILER_PREFIX="$tmp/n/n" SCOPE_PROFILER_EVENTS=page-faults,task-clock "$P" nested </dev/null
inspect "$tmp/n"
python3 - "$tmp/n.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
r = {x["name"]: x["events"] for x in c["regions"]}
for ev in ("page-faults", "task-clock"):
    o, a, b = (r[n][ev] for n in ("outer", "inner_a", "inner_b"))
    inc = lambda x: x["inclusive"]["value"]
    exc = lambda x: x["exclusive"]["value"]
    assert inc(o) == exc(o) + inc(a) + inc(b), (ev, o, a, b)
    assert exc(a) == inc(a) and exc(b) == inc(b), (ev, a, b)
pf = {n: (r[n]["page-faults"]["inclusive"]["value"], r[n]["page-faults"]["exclusive"]["value"]) for n in r}
# the library's own first touches of its tables may land in a region: a few pages
assert 100 <= pf["inner_a"][0] <= 110 and 200 <= pf["inner_b"][0] <= 210, pf
assert 50 <= pf["outer"][1] <= 62, pf
print(pf)
PY

echo "== threads: each lane keeps its own counts"
mkdir "$tmp/t"
SCOPE_PROFILER_PREFIX="$tmp/t/t" SCOPE_PROFILER_EVENTS=page-faults "$P" threads </dev/null
inspect "$tmp/t"
python3 - "$tmp/t.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
work = [x for x in c["regions"] if x["name"] == "work"][0]
lanes = sorted((l["inclusive"]["page-faults"], l["lane"]) for l in work["lanes"])
assert len(lanes) == 2 and lanes[0][1] != lanes[1][1], lanes
assert 300 <= lanes[0][0] <= 310 and 700 <= lanes[1][0] <= 710, lanes
assert work["events"]["page-faults"]["inclusive"]["value"] == lanes[0][0] + lanes[1][0], work
print(lanes)
PY

echo "== an unknown event and a hardware one: named with the reason at start, the program runs, the trace says unavailable"
mkdir "$tmp/u"
SCOPE_PROFILER_PREFIX="$tmp/u/u" SCOPE_PROFILER_EVENTS=bogus,page-faults,cycles "$P" faults \
	</dev/null >"$tmp/u.out" 2>"$tmp/u.err"
cat "$tmp/u.err"
grep -q "^done$" "$tmp/u.out"
grep -q "event bogus cannot be counted: unknown event name" "$tmp/u.err"
test -s "$tmp/u/u_rank00000.spt"
inspect "$tmp/u"
"$SP" inspect "$tmp/u" </dev/null >"$tmp/u.txt"
grep -q "^bogus: unavailable on 1 rank (rank 0: unknown event name" "$tmp/u.txt"
python3 - "$tmp/u.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
ev = {e["name"]: e for e in c["events"]}
assert ev["bogus"]["quality"] == "unavailable" and "unknown event name" in ev["bogus"]["reason"], ev
assert ev["page-faults"]["quality"] == "measured", ev
# cycles: counted on a machine with a PMU, else unavailable with the reason
cyc = ev["cycles"]
assert cyc["quality"] == "measured" or cyc["reason"], cyc
r = c["regions"][0]["events"]
assert r["bogus"]["inclusive"]["value"] is None and r["bogus"]["inclusive"]["quality"] == "unavailable", r
assert abs(r["page-faults"]["inclusive"]["value"] - 4096) <= 41, r
PY

echo "== 18 names, one twice: 8 counted at most, the 9th to 16th unavailable with the reason, the 17th ignored aloud"
mkdir "$tmp/m"
names=task-clock,cpu-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations,faults
names=$names,cs,migrations,perf::TASK-CLOCK,perf::PAGE-FAULTS,bogus1,bogus2,bogus3,bogus4,page-faults,bogus5
SCOPE_PROFILER_PREFIX="$tmp/m/m" SCOPE_PROFILER_EVENTS=$names "$P" faults \
	</dev/null >"$tmp/m.out" 2>"$tmp/m.err"
grep -q "^done$" "$tmp/m.out"
grep -q "1 event names after the first 16 ignored (at most 8 are counted)" "$tmp/m.err"
inspect "$tmp/m"
python3 - "$tmp/m.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["counters"]["events"]
# page-faults twice is one event; bogus5, the 17th distinct name, is ignored
assert len(ev) == 16 and "bogus5" not in [e["name"] for e in ev], ev
assert [e["quality"] for e in ev[:8]] == ["measured"] * 8, ev
for e in ev[8:12]:
    assert e["quality"] == "unavailable" and e["reason"] == "at most 8 events are counted", e
for e in ev[12:]:
    assert e["quality"] == "unavailable" and e["reason"].startswith("unknown event name"), e
PY

echo "== a trace without events has no counters (null in --json, no table)"
mkdir "$tmp/none"
SCOPE_PROFILER_PREFIX="$tmp/none/x" "$P" faults </dev/null
inspect "$tmp/none"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["counters"] is None' "$tmp/none.json"
"$SP" inspect "$tmp/none" </dev/null | { ! grep -q "Counters per region"; }
echo ok
