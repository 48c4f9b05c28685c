#!/bin/bash
# nunatak run on the bundled heat example under real perf: region traces land in collect/regions/, call counts match the program, sweep's samples fall in its region
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$heat" ] || fail "examples/c not built ($heat)"
cd "$WORK"
ITERS=1500
# A user's prefix is overridden (the Run must hold the traces), said once, recorded.
SCOPE_PROFILER_PREFIX="$WORK/mine/x" "$NUNATAK" run -o "$WORK/run" -- "$heat" 256 $ITERS 1 \
	> out.txt 2> err.txt || fail "nunatak run failed"
grep -q "^heat: n=256 iterations=$ITERS" out.txt || fail "application output lost"
grep -q "SCOPE_PROFILER_PREFIX=$WORK/mine/x is overridden" err.txt || fail "no override notice"
[ ! -e "$WORK/mine" ] || fail "traces went to the user's prefix"
ls "$WORK"/run/collect/regions/*_rank00000.spt > /dev/null || fail "no trace in collect/regions/"
grep -q "^.*regions: 7 call paths" err.txt || fail "no regions block in the summary"
grep -qE "^.*  timestep > solve > sweep - .* inclusive, .* exclusive \(measured, wall clock\), [0-9]+ calls" err.txt ||
	fail "a region line without its Quality and clock"
grep -q "^.*    in timestep > solve > sweep [0-9]*%" err.txt || fail "sweep's finding names no region"
"$NUNATAK" report --json "$WORK/run" > payload.json 2>> err.txt || fail "nunatak report --json"

# Call counts from heat.c's own loop: timestep, exchange, solve, sweep each
# ITERATIONS; residual when it % 10 == 0; checkpoint when it % 100 == 0;
# assemble once.
python3 - "$WORK/run" payload.json "$ITERS" "$WORK/mine/x" <<'PY' || fail "assertions"
import json, os, sqlite3, sys
run, payp, iters, user = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
db = sqlite3.connect(os.path.join(run, "pivot.sqlite"))
calls = dict(db.execute("select path, calls from region_stats"))
want = {"assemble": 1, "timestep": iters, "timestep > exchange": iters,
        "timestep > solve": iters, "timestep > solve > sweep": iters,
        "timestep > residual": (iters + 9) // 10, "timestep > checkpoint": (iters + 99) // 100}
assert calls == want, (calls, want)
for path, incl, excl in db.execute("select path, inclusive_ns, exclusive_ns from region_stats"):
    assert 0 < excl <= incl, (path, incl, excl)
# checkpoint sleeps 1 ms per call: its inclusive time is at least that.
ck = db.execute("select inclusive_ns from region_stats where path = 'timestep > checkpoint'").fetchone()[0]
assert ck >= want["timestep > checkpoint"] * 1e6, ck
# The stats' Locus is the sampled main thread (v2 trace: tid = pid).
(tid,) = db.execute("select distinct l.thread from region_stats r join loci l on l.id = r.locus").fetchone()
stids = {t for (t,) in db.execute("select distinct l.thread from measurements m join loci l on l.id = m.locus join hotspots h on h.id = m.hotspot where h.name = 'sweep'")}
assert stids == {tid}, (tid, stids)
# sweep's samples: every one accounted for by region_samples, mostly in its region.
n_sweep = db.execute("select sum(m.sample_count) from measurements m join hotspots h on h.id = m.hotspot where h.name = 'sweep' and m.counter = 'task-clock'").fetchone()[0]
rows = db.execute("select r.region_path, sum(r.sample_count) from region_samples r join hotspots h on h.id = r.hotspot where h.name = 'sweep' and r.counter = 'task-clock' group by 1").fetchall()
by = dict(rows)
assert sum(by.values()) == n_sweep, (rows, n_sweep)
inside = by.get("timestep > solve > sweep", 0) / n_sweep
print(f"sweep: {n_sweep} samples, {inside:.1%} inside timestep > solve > sweep")
assert n_sweep >= 30 and inside >= 0.9, rows
m = json.load(open(os.path.join(run, "manifest.json")))
assert m["provenance"]["effective_configuration"]["env.SCOPE_PROFILER_PREFIX.user"] == user
assert "regions-not-aligned" not in [d["name"] for d in m["degradations"]], m["degradations"]
p = json.load(open(payp))
try:
    import jsonschema
    schema = json.load(open(os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "docs/schemas/report-payload.json")))
    # flame nodes nest as deep as the sampled stacks (perf keeps 127 frames, a
    # frame-pointer chain that loops fills them all; the flame allows 512): Debian's
    # jsonschema 4.10 spends about 8 Python frames a level and passes the default
    # limit of 1000 from ~115 levels (RecursionError, seen as nobody at 129 levels)
    sys.setrecursionlimit(20000)
    jsonschema.Draft202012Validator(schema).validate(p)
except ImportError:
    print("note: python3-jsonschema absent: payload not validated against its schema")
assert {r["path"] for r in p["regions"]} == set(want), p["regions"]
top = p["regions"][0]
assert top["path"] == "timestep" and top["calls"] == iters and top["ranks"] is None, top
h = [h for h in p["hotspots"] if h["name"] == "sweep"][0]
assert h["regions"][0]["path"] == "timestep > solve > sweep", h["regions"]
assert abs(h["regions"][0]["share"]["value"] - inside) < 1e-9, (h["regions"], inside)
PY
echo ok
