#!/bin/bash
# nunatak run --record of a program living in the kernel (getppid loop), replayed elsewhere: the same Hotspots (names, samples, shares), kernel functions and kernel stack frames included, and meta.json carries what replay reads
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
TEXT=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms 2>/dev/null || true)
case "$TEXT" in
"" | 0000000000000000)
	echo "skip: /proc/kallsyms shows no addresses here (not root, or kernel.kptr_restrict)"
	exit 2 ;;
esac
cc -O1 -g -fno-omit-frame-pointer -o "$WORK/sys_loop" "$NUNATAK_SOURCE_DIR/tests/fixtures/attrib/sys_loop.c"
cd "$WORK"
"$NUNATAK" run --record "$WORK/entry" -o "$WORK/rec" --json -- ./sys_loop 3000000 > rec.json 2> err1.txt ||
	fail "recording run"
mkdir elsewhere
(cd elsewhere && "$NUNATAK" run --replay "$WORK/entry" -o "$WORK/rep" --json -- ./sys_loop 3000000 \
	> ../rep.json 2> ../err2.txt) || fail "replay run"
"$NUNATAK" report --json "$WORK/rec" > prec.json || fail "report of the recording"
"$NUNATAK" report --json "$WORK/rep" > prep.json || fail "report of the replay"
python3 - "$WORK" <<'PY' || fail "the replay's Hotspots differ from the original's"
import json, os, sqlite3, sys
w = sys.argv[1]
meta = json.load(open(os.path.join(w, "entry/meta.json")))
# every field replay reads is in the recording
assert meta.get("sampling_blocked") is False, meta.get("sampling_blocked")
assert [c["tool"] for c in meta.get("collectors", [])] == ["perf"], meta.get("collectors")
assert meta["kernel_symbols"]["symbols"], "no kernel symbols recorded"
def pivot(run):
    db = sqlite3.connect(os.path.join(w, run, "pivot.sqlite"))
    hs = sorted(db.execute("""select h.module, coalesce(h.name, ''), h.resolution_level, coalesce(h.offset, -1),
        m.counter, sum(m.sample_count), sum(m.value) from measurements m
        join hotspots h on h.id = m.hotspot group by h.id, m.counter""").fetchall())
    frames = sorted(db.execute("""select module, offset, coalesce(function, ''), count(*) from stack_frames
        where module = '[kernel.kallsyms]' group by 1, 2, 3""").fetchall())
    return hs, frames
(ha, fa), (hb, fb) = pivot("rec"), pivot("rep")
kernel = [r for r in ha if r[0] == "[kernel.kallsyms]"]
total = sum(r[5] for r in ha if r[4] == "task-clock")
# the program lives in the kernel, and the original names it there
assert sum(r[5] for r in kernel) > 0.3 * total, (kernel, total)
assert sum(r[5] for r in kernel if r[1]) > 0.9 * sum(r[5] for r in kernel), kernel
assert ha == hb, ("Hotspots", [r for r in ha if r not in hb], [r for r in hb if r not in ha])
assert fa == fb and any(f[2] for f in fa), ("kernel stack frames", fa[:5], fb[:5])
a, b = json.load(open(os.path.join(w, "prec.json"))), json.load(open(os.path.join(w, "prep.json")))
def top(p):
    return [(h["name"], h["module"], h["samples"], h["share"]["value"], h["share"]["quality"])
            for h in p["hotspots"]]
assert top(a) == top(b) and top(a), (top(a), top(b))
assert any(m == "[kernel.kallsyms]" and n for n, m, *_ in top(a)), top(a)
for k in ("others", "unresolved"):
    assert a[k] == b[k], (k, a[k], b[k])
# a real Run's payload: every number carries its Quality or is a raw count
sys.path.insert(0, os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "tests/fixtures/run"))
import quality_walk
quality_walk.check(a, "report --json of the recorded Run")
assert a["hotspots"][0]["callers"] and a["hotspots"][0]["lines"] is not None
PY
echo "ok: the replay's Hotspots equal the original's, kernel included"
