#!/usr/bin/env bash
# regions export in real viewers: the speedscope and threads exports validate against speedscope's published JSON schema (npm package pinned by tests/cli/regions_viewers/package-lock.json); regions_viewers_browser.sh loads them in speedscope itself
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c "import jsonschema" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with jsonschema (apt-get install python3-jsonschema)"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/setup.bash"

"$py" - "$release/file-format-schema.json" www/run.speedscope.json www/threads.speedscope.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    jsonschema.validate(json.load(open(path)), schema)
bad = json.load(open(sys.argv[2])); bad["profiles"][0]["type"] = "sampledx"
try:
    jsonschema.validate(bad, schema)
    sys.exit("the schema check accepts a broken file")
except jsonschema.ValidationError:
    pass
PY
echo ok
