#!/bin/bash
# a program that sleeps half its wall time under real perf: time_budget.offcpu_ns within 15% of its own wall - CPU, the summary's first line says wall/on CPU/off CPU with their base, and (as root) its sleeping function first among the off-CPU Hotspots with cause sleep
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -o "$WORK/sleeper" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/sleeper.c"
cd "$WORK"
"$NUNATAK" run -o "$WORK/run" --json -- ./sleeper "$WORK/truth.txt" > out.json 2> err.txt </dev/null ||
	fail "nunatak run failed"
[ -s truth.txt ] || fail "the program did not write its own times"
grep -q "time: wall .* s; on CPU .* s (.*% of wall time), off CPU .* s (.*% of wall time" err.txt ||
	fail "the summary's time line is missing or does not name its base"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" rep.json > walk.txt 2>&1 ||
	fail "a number of the payload without its Quality: $(cat walk.txt)"
ROOT=$([ "$(id -u)" = 0 ] && echo 1 || echo 0)
python3 - "$ROOT" <<'PY' || fail "time budget"
import json, sys
root = sys.argv[1] == "1"
wall, cpu = map(float, open("truth.txt").read().split())
rep = json.load(open("rep.json"))
# root records the switches' stacks unless perf refused them here (announced)
root = root and "offcpu-unattributed" not in [d["name"] for d in rep["degradations"]]
tb = rep["time_budget"]
assert tb is not None, "no time_budget"
for k in ("wall_ns", "cpu_ns", "offcpu_ns"):
    v = tb[k]
    assert v["quality"] == "measured" and v["clock"] and v["value"] is not None, (k, v)
truth = (wall - cpu) * 1e9
off = tb["offcpu_ns"]["value"]
assert truth > 0.3e9, ("the program did not sleep", wall, cpu)
assert abs(off - truth) <= 0.15 * truth, ("offcpu_ns %.0f vs the program's own wall - CPU %.0f" % (off, truth))
# per-Locus rows carry the same, and sum to the Run's
rows = tb["loci"]
assert len(rows) == 1, rows
assert abs(rows[0]["offcpu_ns"]["value"] - off) < 1, rows
assert abs(rows[0]["wall_ns"]["value"] - rows[0]["cpu_ns"]["value"] - off) < 2, rows
hs = rep["offcpu_hotspots"]
if root:
    assert tb["mechanism"].endswith("call stacks"), tb["mechanism"]
    first = hs[0]
    assert first["attributed"] and first["name"] == "nap_between_rounds", hs[:3]
    assert first["cause"] == "sleep", first
    # 4 naps of 150 ms: the function's off-CPU time is at least most of them
    assert first["time_ns"]["value"] >= 0.45e9, first
else:
    assert not any(h["attributed"] for h in hs), hs
print("offcpu %.3f s vs truth %.3f s" % (off / 1e9, truth / 1e9))
PY
if [ "$ROOT" = 1 ] && ! grep -q "offcpu-unattributed" err.txt; then
	grep -q "off CPU in \`nap_between_rounds\` (sleep)" err.txt || fail "the summary does not name the sleeping function"
fi
