#!/usr/bin/env bash
# report --format speedscope|collapsed in real viewers: a replayed Run with fp call stacks (workload-c-stacks) validates against speedscope's published JSON schema, (speedscope itself opening both in headless Chromium: report_stacks_browser.sh); the collapsed text keeps the recorded time
set -eu
tmp=$(mktemp -d)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
entry="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64/workload-c-stacks"
"$NUNATAK" run -q --replay "$entry" -o "$tmp/run" -- ./workload 2>err.txt || { cat err.txt; fail "replay"; }
mkdir www
"$NUNATAK" report -f speedscope -o www/run.speedscope.json run 2>/dev/null || fail "speedscope export"
"$NUNATAK" report --format collapsed run >www/run.collapsedstack.txt 2>/dev/null || fail "collapsed export"
"$NUNATAK" report -f bogus run 2>bad.txt && fail "an unknown format was accepted"
grep -q "expected collapsed, speedscope or roofline-csv" bad.txt || fail "unclear error: $(cat bad.txt)"
python3 - www/run.collapsedstack.txt run/pivot.sqlite <<'PY'
import sqlite3, sys
lines = [l.rsplit(" ", 1) for l in open(sys.argv[1]).read().splitlines()]
total = sum(int(v) for _, v in lines)
db = sqlite3.connect(sys.argv[2])
want = db.execute("select sum(value) from stacks where counter='task-clock'").fetchone()[0]
assert abs(total - want) <= len(lines), (total, want)
top = max(lines, key=lambda l: int(l[1]))
assert top[0] == "_start;__libc_start_main;__libc_start_call_main;main", top
PY

command -v npm >/dev/null || { echo "skip: npm is not installed (apt-get install npm)"; exit 2; }
# speedscope pinned by tests/cli/regions_viewers/package-lock.json, installed
# once per build directory (its own copy: regions_viewers.sh may be installing
# its own at the same moment under ctest -j).
dest="$NUNATAK_BUILD_DIR/stacks-viewers"
mkdir -p "$dest"
cp "$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package.json" \
	"$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package-lock.json" "$dest/"
release="$dest/node_modules/speedscope/dist/release"
if [ ! -f "$release/file-format-schema.json" ]; then
	(cd "$dest" && { npm ci --offline --no-audit --no-fund >npm.log 2>&1 ||
		timeout 180 npm ci --prefer-offline --no-audit --no-fund >>npm.log 2>&1; }) ||
		{ echo "skip: could not install speedscope from npm (offline?): $(tail -1 "$dest/npm.log")"; exit 2; }
fi
checked=0
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c "import jsonschema" 2>/dev/null; then py=$p; break; fi
done
if [ -n "$py" ]; then
	"$py" - "$release/file-format-schema.json" www/run.speedscope.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
jsonschema.validate(d, schema)
p = d["profiles"][0]
assert p["type"] == "sampled" and p["unit"] == "nanoseconds", p["type"]
assert len(p["samples"]) == len(p["weights"]) > 0
names = [f["name"] for f in d["shared"]["frames"]]
assert [names[i] for i in p["samples"][0]][:2] == ["_start", "__libc_start_main"], "root first"
bad = json.loads(json.dumps(d)); bad["profiles"][0]["type"] = "sampledx"
try:
    jsonschema.validate(bad, schema)
    sys.exit("the schema check accepts a broken file")
except jsonschema.ValidationError:
    pass
PY
	checked=$((checked + 1))
fi
[ "$checked" -gt 0 ] || { echo "skip: no python3 with jsonschema (apt-get install python3-jsonschema)"; exit 2; }
echo ok
