#!/usr/bin/env bash
# regions --json outputs (inspect, tree, export json events and summary, lines) validate against docs/schemas/regions-*.json
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
schemas="$NUNATAK_SOURCE_DIR/docs/schemas"
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c "import jsonschema" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with jsonschema (apt-get install python3-jsonschema)"; exit 2; }
mkdir run
python3 "$mk" small run 2
python3 "$mk" threads th_rank00000.spt
"$NUNATAK" regions inspect run --json >summary.json
"$NUNATAK" regions inspect run --json --percentage exclusive --ranks 1 >summary1.json
"$NUNATAK" regions tree run --json >tree.json
"$NUNATAK" regions tree th_rank00000.spt --json >tree-th.json
"$NUNATAK" regions export run -f json -o events.json
"$NUNATAK" regions export run -f json --table summary -o summary2.json
python3 - "$NUNATAK_SOURCE_DIR/tests/cli" <<'PY'
import sys; sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
m.sps("s_rank00000.sps", 0, 100, 10, ["r"], [], [(0, -1, 16), (-1, -1, 32)])
PY
"$NUNATAK" regions lines s_rank00000.sps --json >lines.json
mkdir ctr
python3 "$mk" counters ctr/c_rank00000.spt
"$NUNATAK" regions inspect ctr --json >summary-ctr.json
"$py" - "$schemas" <<'PY'
import json, sys, jsonschema
d = sys.argv[1]
def check(schema, *docs):
    s = json.load(open("%s/regions-%s.json" % (d, schema)))
    jsonschema.Draft202012Validator.check_schema(s)
    for doc in docs:
        jsonschema.validate(json.load(open(doc)), s, cls=jsonschema.Draft202012Validator)
check("summary", "summary.json", "summary1.json", "summary2.json", "summary-ctr.json")
assert json.load(open("summary-ctr.json"))["counters"]["regions"], "counters missing"
check("tree", "tree.json", "tree-th.json")
check("events", "events.json")
check("lines", "lines.json")
# The schemas are strict enough to catch a wrong shape.
bad = json.load(open("events.json")); bad["events"][0]["rank"] = "0"
try:
    jsonschema.validate(bad, json.load(open(d + "/regions-events.json")))
    sys.exit("schema accepted a string rank")
except jsonschema.ValidationError:
    pass
PY
echo ok
