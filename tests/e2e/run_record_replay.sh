#!/bin/bash
# nunatak run --record with real perf, then --replay of that entry elsewhere: the same Run content without perf or the binary
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
build_two_hot
cd "$WORK"
"$NUNATAK" run --record "$WORK/entry" -o "$WORK/rec" --json -- ./two_hot 300000000 > rec.json 2> err1.txt ||
	fail "recording run"
[ -f entry/meta.json ] && ls entry/invocations/*.json > /dev/null || fail "no corpus entry written"
grep -q '"script"' entry/invocations/*.json || fail "perf script was not recorded"
mkdir elsewhere
(cd elsewhere && "$NUNATAK" run --replay "$WORK/entry" -o "$WORK/rep" --json -- ./two_hot 300000000 \
	> ../rep.json 2> ../err2.txt) || fail "replay run"
python3 - rec.json rep.json "$WORK/rec" "$WORK/rep" <<'PY' || fail "record and replay differ"
import json, sqlite3, sys, os
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# Kernel samples are named from the symbols the recording kept (meta.json
# kernel_symbols, docs/attribution.md "Kernel"): every Hotspot is the same.
def rows(run):
    db = sqlite3.connect(os.path.join(run, "pivot.sqlite"))
    agg = {}
    for name, mod, off, counter, n in db.execute("select h.name, h.module, coalesce(h.offset, -1), m.counter, m.sample_count from measurements m join hotspots h on h.id = m.hotspot"):
        key = (name or mod, off, counter)
        agg[key] = agg.get(key, 0) + n
    return sorted(agg.items())
ra, rb = rows(sys.argv[3]), rows(sys.argv[4])
assert ra == rb and ra, (ra, rb)
for k in ("exit_code", "measurements", "hotspots", "resolved_hotspots"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
