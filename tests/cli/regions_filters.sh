#!/usr/bin/env bash
# regions --include/--exclude on tree, every event export and plot: filtered regions vanish and their children re-nest under the nearest kept ancestor
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 is needed to write test traces"; exit 2; }
mkdir run
python3 "$mk" small run 2
# rank 0: main(100) > init(9), solve(2 calls, 80) > dot(4, 38), axpy(1, 19)

# tree: without solve, dot and axpy hang under main, whose exclusive time takes solve's own 23 us
"$NUNATAK" regions tree run --rank 0 --exclude '^solve$' >tree.txt
grep -qE "^ +100\.000 us +34\.000 us +100\.0 +1  main$" tree.txt || fail "main: $(cat tree.txt)"
grep -qE "^ +38\.000 us +38\.000 us +38\.0 +4    dot$" tree.txt || fail "dot re-nested: $(cat tree.txt)"
! grep -q solve tree.txt || fail "solve still shown"
"$NUNATAK" regions tree run --rank 0 --include '^(main|dot)$' --json >tree.json
python3 - tree.json <<'PY'
import json, sys
nodes = json.load(open(sys.argv[1]))["ranks"][0]["lanes"][0]["nodes"]
got = [(n["path"], n["calls"], n["inclusive_ns"], n["exclusive_ns"]) for n in nodes]
assert got == [("main", 1, 100000, 62000), ("main > dot", 4, 38000, 38000)], got
PY

# collapsed stacks
"$NUNATAK" regions export run -f collapsed -o - --ranks 0 --exclude '^solve$' >c.txt
[ "$(sort c.txt)" = "$(printf 'rank 0;main 34000\nrank 0;main;axpy 19000\nrank 0;main;dot 38000\nrank 0;main;init 9000\n' | sort)" ] ||
	fail "collapsed: $(cat c.txt)"

# CSV and JSON events: only the kept regions, depth and exclusive recomputed
"$NUNATAK" regions export run -f csv -o ev.csv --ranks 0 --include '^(main|dot)$'
python3 - ev.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted({r["name"] for r in rows}) == ["dot", "main"], rows
assert [r["depth"] for r in rows if r["name"] == "dot"] == ["1"] * 4
main = [r for r in rows if r["name"] == "main"][0]
assert abs(float(main["exclusive"]) - 62e-6) < 1e-12, main
PY
"$NUNATAK" regions export run -f json -o ev.json --exclude 'dot|axpy'
python3 - ev.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["name"] for e in (d["events"] if isinstance(d, dict) and "events" in d else d)}
assert names == {"main", "init", "solve"}, names
PY

# speedscope and Chrome trace: no frame of an excluded region
"$NUNATAK" regions export run -f speedscope -o s.json --exclude '^dot$'
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "dot" not in [f["name"] for f in d["shared"]["frames"]] or all(
    e["frame"] != [f["name"] for f in d["shared"]["frames"]].index("dot")
    for p in d["profiles"] for e in p["events"]), "dot in speedscope"' s.json
"$NUNATAK" regions export run -f chrome -o t.json --exclude '^dot$'
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
names = {e.get("name") for e in ev if e.get("ph") in ("X", "B", "E")}
assert "dot" not in names and "axpy" in names, names' t.json

# plot
"$NUNATAK" regions plot run -o p.html --include '^main$'
python3 - p.html <<'PY'
import json, re, sys
data = json.loads(re.search(r"const DATA=(\{.*?\});\n", open(sys.argv[1]).read(), re.S).group(1))
assert data["kept"] == 2, data["kept"]  # one main call per rank
PY

# a bad pattern is a usage error naming it
status=0; "$NUNATAK" regions tree run --exclude '(' 2>err.txt || status=$?
[ "$status" = 125 ] || fail "bad regex exit $status"
grep -q "invalid regular expression '('" err.txt || fail "message: $(cat err.txt)"
echo ok
