#!/bin/bash
# nunatak run with real perf: samples land in two_hot's own hot functions (nm), count ~ freq x CPU time, exit code and stdout pass through
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
build_two_hot
cd "$WORK"
N=600000000
# Bare CPU time of the same work, measured independently of nunatak.
CPU=$(python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)' ./two_hot $N)

set +e
TWO_HOT_SAY=1 "$NUNATAK" run -o "$WORK/run" --json -- ./two_hot $N 3 > out.json 2> err.txt
RC=$?
set -e
[ "$RC" -eq 3 ] || fail "exit code $RC, expected the application's 3"
# --json: stdout holds only the JSON document; the application's line went
# to stderr, untouched (docs/cli/run.md).
grep -qx "two_hot done" err.txt || fail "application stdout altered or lost"
cp out.json doc.json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' doc.json || fail "stdout is not one JSON document"
grep -q "collecting with perf" err.txt || fail "no collecting line"

# Without the app's own output, --json leaves only JSON on stdout. A cost
# per sample left by an older nunatak beside the cache (bench/run wrote one)
# is no measurement of this Machine's profile: no overhead figure from it.
mkdir -p "$WORK/cache/nunatak"
echo 0.000020000 > "$WORK/cache/nunatak/perf-sample-cost"
XDG_CACHE_HOME="$WORK/cache" "$NUNATAK" run -o "$WORK/run2" --json -- ./two_hot 100000000 \
	> only.json 2> err2.txt || fail "second run"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exit_code"] == 0' only.json ||
	fail "--json stdout is not only JSON"
grep -q "overhead: unmeasured ([0-9]* samples of perf sampling; no cost per sample in this Machine's profile (\`nunatak calibrate --force\` measures it" err2.txt ||
	fail "the unmeasured cost per sample is not said: $(grep overhead err2.txt)"
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["overhead"]
assert o["quality"] == "unavailable" and o["value"] is None and o["cost_per_sample_s"] is None, o
assert o["cost_quality"] == "unavailable" and o["collector"] == "perf" and o["samples"] > 0, o' \
	"$WORK/run2/manifest.json" || fail "manifest overhead of run2"

nm -S --defined-only two_hot > nm.txt
readelf -lW two_hot > phdr.txt
python3 - "$WORK/run" doc.json nm.txt phdr.txt "$CPU" "$WORK/two_hot" <<'PY' || fail "assertions"
import json, os, re, sqlite3, sys
run, docp, nmp, phdrp, cpu, binary = sys.argv[1:7]
cpu = float(cpu)
doc = json.load(open(docp))
assert doc["exit_code"] == 3, doc
m = json.load(open(os.path.join(run, "manifest.json")))
assert m["run"]["exit_code"] == 3 and m["passes"][0]["exit_code"] == 3
assert m["passes"][0]["collectors"][0]["tool"] == "perf"
# No cost per sample in a profile of this cache (the suite's shared cache
# may hold a calibrated one): no invented overhead (issue 24)
o = m["overhead"]
if o["cost_quality"] in ("measured", "estimated"):
    assert o["quality"] == "estimated" and o["value"] > 0 and o["cost_per_sample_s"] > 0, o
    assert "measured on this Machine by the calibration" in o["reason"], o
else:
    assert o["quality"] == "unavailable" and o["value"] is None and o["cost_per_sample_s"] is None, o
    assert "cost per sample" in o["reason"], o
# nunatak's own cost, part by part (issue 27), each a Value
cost = m["cost"]
for k in ("setup", "calibration", "network_probe", "application", "finish"):
    assert cost[k]["quality"] == "measured" and cost[k]["value"] >= 0 and cost[k]["unit"] == "s", (k, cost)
assert cost["setup"]["value"] > 0 and cost["finish"]["value"] > 0, cost
assert cost["network_probe"]["value"] == 0 and cost["network_ceilings"] == "none", cost
assert cost["collection_overhead"]["quality"] == o["quality"], (cost, o)
assert cost["collection_overhead"]["value"] == o["value"], (cost, o)
funcs = {}
for line in open(nmp):
    p = line.split()
    if len(p) == 4 and p[3] in ("hot_alpha", "hot_beta"):
        funcs[p[3]] = (int(p[0], 16), int(p[1], 16))
assert set(funcs) == {"hot_alpha", "hot_beta"}, funcs
# Offsets are file offsets (perf's dsoff, docs/ingest.md): convert to the
# symbol table's virtual addresses through the PT_LOAD that holds them.
loads = []
for line in open(phdrp):
    p = line.split()
    if p and p[0] == "LOAD":
        loads.append((int(p[1], 16), int(p[2], 16), int(p[4], 16)))
def vaddr(off):
    for fo, va, sz in loads:
        if fo <= off < fo + sz:
            return off - fo + va
    return None
def which(off):
    v = vaddr(off)
    for name, (start, size) in funcs.items():
        if v is not None and start <= v < start + size:
            return name
    return None
db = sqlite3.connect(os.path.join(run, "pivot.sqlite"))
binpath = os.path.realpath(binary)
hs = {r[0]: r[1:] for r in db.execute("select id, module, name, offset, resolution_level from hotspots")}
per_func = {"hot_alpha": 0, "hot_beta": 0}
own = total = 0
for hid, counter, n in db.execute(
        "select hotspot, counter, sample_count from measurements where hotspot is not null"):
    assert counter == "task-clock", counter
    total += n
    module, name, off, level = hs[hid]
    if os.path.realpath(module) != binpath:
        continue
    own += n
    if level == "unresolved":
        f = which(off)
        if f: per_func[f] += n
    else:
        assert name in (None, "hot_alpha", "hot_beta", "main"), name
        if name in per_func:
            # the named Hotspot's offset is its function start
            assert which(off) == name, (name, hex(off))
            per_func[name] += n
# Every sampled address of the named Hotspots lies inside its function.
for hid, off, n in db.execute("select hotspot, offset, sample_count from addresses"):
    module, name, _, _ = hs[hid]
    if name in per_func:
        assert which(off) == name, (name, hex(off))
assert total > 0
assert per_func["hot_alpha"] > 0 and per_func["hot_beta"] > 0, per_func
assert (per_func["hot_alpha"] + per_func["hot_beta"]) / total > 0.8, (per_func, total)
# ~ frequency x CPU time, generous bounds (a shared 2-core machine).
expected = 997 * cpu
assert 0.4 * expected <= total <= 1.6 * expected, (total, expected)
PY
"$NUNATAK" report "$WORK/run" > report.txt 2>> err.txt || fail "nunatak report"
grep -q "hot_alpha\|hot_beta\|two_hot+0x" report.txt || fail "report names neither hot function"
