#!/bin/bash
# compare of a renamed and rebuilt binary (two_funcs run as solver-new, heavy_seventy 2x slower): functions matched across the modules by name and source file, said (compare.renamed), only the changed function flagged, none vanished or new (issue 24)
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/compare/runs.sh"
need_perf
build_two_funcs
mkdir -p "$WORK/renamed"
cp "$WORK/slow/two_funcs" "$WORK/renamed/solver-new"
make_run base a1
(cd "$WORK/renamed" && "$NUNATAK" run -q -o "$WORK/b1" -- ./solver-new "$ITERATIONS" \
	>"$WORK/b1.out" 2>"$WORK/b1.err" </dev/null) || { cat "$WORK/b1.err" >&2; echo "FAIL: run of solver-new" >&2; exit 1; }
cd "$WORK"
rc=0
"$NUNATAK" compare --json --no-html a1 b1 >ren.json 2>ren.err </dev/null || rc=$?
[ "$rc" = 0 ] || { cat ren.err >&2; echo "FAIL: compare exited $rc" >&2; exit 1; }
python3 - <<'PY'
import json
d = json.load(open("ren.json"))
hot = {h["name"]: h for h in d["hotspots"]}
for name in ("heavy_seventy", "light_thirty"):
    assert name in hot and hot[name]["verdict"] not in ("new", "vanished"), (name, hot.get(name))
# the program's own functions: a busy machine can add a kernel one in one Run
flagged = [h["name"] for h in d["hotspots"] if h["significant"] and h["name"] in ("heavy_seventy", "light_thirty", "main")]
assert flagged == ["heavy_seventy"], flagged
assert 1.6 <= hot["heavy_seventy"]["ratio"] <= 2.4, hot["heavy_seventy"]
notes = [n for n in d["notes"] if n["code"] == "compare.renamed"]
assert notes and "two_funcs -> solver-new" in notes[0]["message"], d["notes"]
assert "matched by name and source file" in notes[0]["message"], notes
print("renamed:", notes[0]["message"])
PY
echo ok
