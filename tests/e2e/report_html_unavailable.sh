#!/bin/bash
# report.html drawn by headless Chromium from a payload where every Quality value is unavailable (the rich fixture, its schema-5 bare numbers outside the raw-count list made unavailable too): each reads "unavailable", never 0, 0%, 0 s or NaN
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/payload.json" <<'PY'
import json, os, re, sys
sys.path.insert(0, os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "tests/fixtures/run"))
import quality_walk as qw
pats = qw.raw_patterns()
GONE = "test: withheld"
def gone(unit=None):
    return {"value": None, "unit": unit, "quality": "unavailable", "reason": GONE}
n = [0]
def withhold(o, path):
    path = re.sub(r"(\.c\[\])+", ".c[]", path)
    if qw.is_value(o):
        o.update(value=None, quality="unavailable", reason=GONE)
        n[0] += 1
        return o
    if isinstance(o, dict):
        return {k: withhold(v, path + "." + k) for k, v in o.items()}
    if isinstance(o, list):
        return [withhold(v, path + "[]") for v in o]
    if isinstance(o, (int, float)) and not isinstance(o, bool) and not qw.allowed(path, pats):
        n[0] += 1
        return gone()
    return o
p = withhold(json.load(open(sys.argv[1])), "$")
p["schema"] = 6
# what the fixture lacks: region times, MPI calls and their dominant wait
p["regions"] = [{"path": "solve", "name": "solve", "calls": 3, "inclusive_ns": gone("ns"),
                 "exclusive_ns": gone("ns"),
                 "ranks": {"count": 2, "max_inclusive_ns": gone("ns"), "mean_inclusive_ns": gone("ns"),
                           "imbalance": gone("ratio")}}]
row = p["ranks"]["rows"][0]
row["mpi"] = {"source": "interposition", "quality": "unavailable", "reason": GONE, "wall_ns": gone("ns")}
row["mpi_calls"] = [{"name": "MPI_Barrier", "calls": 4, "time_ns": gone("ns"), "bytes": 0,
                     "sites": [{"file": "a.c", "line": 3, "function": "main", "time_ns": gone("ns"),
                                "calls": 4, "address": "x+0x1"}]}]
p["ranks"]["mpi_dominant"] = {"rank": row["rank"], "call": "MPI_Barrier", "fraction": gone("ratio"),
                              "site": "a.c:3"}
assert n[0] > 50, n[0]
qw.check(p, "the withheld payload")  # nothing bare is left outside the raw counts
json.dump(p, open(sys.argv[2], "w"))
PY
"$NUNATAK" report --payload "$tmp/payload.json" --html 2>"$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
dump_dom "file://$tmp/report.html" "$tmp/dom.html"
python3 - "$tmp/dom.html" <<'PY'
import html, re, sys
dom = open(sys.argv[1]).read()
assert 'class="fatal"' not in dom, "the page failed to draw a part"
text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", dom, flags=re.S)))
assert text.count("unavailable") >= 10, text.count("unavailable")
for bad in ("NaN", "undefined", "null"):
    assert bad not in text, (bad, text[max(0, text.find(bad) - 120):text.find(bad) + 60])
# a withheld share or time never reads as zero
for m in re.finditer(r"(?<![\d.,])0(?:\.0+)?\s*(%|s\b|ms\b|us\b|ns\b|x\b)", text):
    raise AssertionError("zero shown for a withheld value: ..." + text[max(0, m.start() - 100):m.end() + 40])
PY
echo "ok: every unavailable value reads unavailable"
