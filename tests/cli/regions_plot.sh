#!/usr/bin/env bash
# regions plot: a self-contained timeline page (no network), its data, the call budget, and report-app/timeline's script embedded
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
mkdir run
python3 "$mk" small run 2
"$NUNATAK" regions plot run -o timeline.html
grep -q '<canvas id="chart">' timeline.html || fail "no canvas"
# Self-contained: no external script, style, font or fetch.
if grep -qiE '<script[^>]+src=|<link[^>]+href=|https?://|fetch\(|@import' timeline.html; then
	fail "the page references something outside itself"
fi
python3 - timeline.html <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
data = json.loads(re.search(r"const DATA=(\{.*?\});\n", html, re.S).group(1))
assert [l["label"] for l in data["lanes"]] == ["rank 0", "rank 1"]
assert data["kept"] == 18 and data["dropped"] == 0
r1 = data["lanes"][1]
names = [data["names"][i] for i in r1["r"]]
assert names[0] == "main" and r1["d"][0] == 200000 and r1["z"][names.index("axpy")] == 2
PY
# A threaded trace: lanes are labelled with the threads' names and ids.
mkdir thr
python3 - "$mk" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("mk", sys.argv[1]); mk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mk)
mk.spt("thr/thr_rank00000.spt", 0, [("work", None, -1, [(1000, 2000, 0), (1500, 2500, 1)])],
       version=3, threads=[(4242, "main"), (4243, "omp-worker")])
PY
"$NUNATAK" regions plot thr -o thr.html
python3 - thr.html <<'PY'
import json, re, sys
data = json.loads(re.search(r"const DATA=(\{.*?\});\n", open(sys.argv[1]).read(), re.S).group(1))
labels = [l["label"] for l in data["lanes"]]
assert labels == ["rank 0 main (tid 4242)", "rank 0 omp-worker (tid 4243)"], labels
PY
# With a budget of 4 calls (2 per rank) only the longest calls are drawn.
"$NUNATAK" regions plot run -o small.html --max-calls 4
grep -q '"kept":4,"dropped":14' small.html || fail "budget: $(grep -o '"kept":[0-9]*,"dropped":[0-9]*' small.html)"
# The page's script and style are report-app/timeline's, embedded at build time.
python3 - timeline.html "$NUNATAK_SOURCE_DIR/report-app/timeline" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
for name in ("timeline.js", "timeline.css"):
    assert open(f"{sys.argv[2]}/{name}", encoding="utf-8").read() in html, f"{name} not in the page"
PY
echo ok
