#!/usr/bin/env bash
# regions export in real viewers: speedscope's published JSON schema, and speedscope itself (headless Chromium) loading the speedscope, Chrome-trace and collapsed exports
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
tmp=$(mktemp -d)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
cd "$tmp"
mk="$NUNATAK_SOURCE_DIR/tests/cli/regions_mktrace.py"
fail() { echo "FAIL: $*"; exit 1; }
command -v npm >/dev/null || { echo "skip: npm is not installed (apt-get install npm)"; exit 2; }

# speedscope from npm, pinned by tests/cli/regions_viewers/package-lock.json,
# installed once per build directory (never into the source tree).
dest="$NUNATAK_BUILD_DIR/regions-viewers"
mkdir -p "$dest"
cp "$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package.json" \
	"$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package-lock.json" "$dest/"
release="$dest/node_modules/speedscope/dist/release"
if [ ! -f "$release/file-format-schema.json" ]; then
	(cd "$dest" && { npm ci --offline --no-audit --no-fund >npm.log 2>&1 ||
		timeout 180 npm ci --prefer-offline --no-audit --no-fund >>npm.log 2>&1; }) ||
		{ echo "skip: could not install speedscope from npm (offline?): $(tail -1 "$dest/npm.log")"; exit 2; }
fi
[ -f "$release/file-format-schema.json" ] || fail "speedscope package without file-format-schema.json"

mkdir run www
python3 "$mk" small run 2
python3 "$mk" threads th_rank00000.spt
"$NUNATAK" regions export run -f speedscope -o www/run.speedscope.json
"$NUNATAK" regions export th_rank00000.spt -f speedscope -o www/threads.speedscope.json
"$NUNATAK" regions export run -f chrome -o www/run.trace.json
"$NUNATAK" regions export run -f collapsed -o www/run.collapsedstack.txt
checked=0

py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c "import jsonschema" 2>/dev/null; then py=$p; break; fi
done
if [ -n "$py" ]; then
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
	checked=$((checked + 1))
else
	echo "note: no python3 with jsonschema (apt-get install python3-jsonschema); schema check skipped"
fi

if command -v chromium >/dev/null 2>&1; then
	cp -r "$release"/. www/
	# A negative control: speedscope must visibly reject a stack that is not LIFO.
	python3 - www/run.speedscope.json www/broken.speedscope.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); e = d["profiles"][0]["events"]; e[1], e[2] = e[2], e[1]
json.dump(d, open(sys.argv[2], "w"))
PY
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	(cd www && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
	server=$!
	for _ in $(seq 50); do
		python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html')" 2>/dev/null && break
		sleep 0.1
	done
	title() { # the page title after speedscope loaded $1 (it names the profile there)
		local ud; ud=$(mktemp -d)
		timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$ud" --virtual-time-budget=10000 --dump-dom \
			"http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/$1" 2>/dev/null |
			grep -o '<title>[^<]*</title>' || true
		rm -rf "$ud"
	}
	t=$(title run.speedscope.json); [ "$t" = "<title>run - speedscope</title>" ] || fail "speedscope export: $t"
	t=$(title threads.speedscope.json); [ "$t" = "<title>th - speedscope</title>" ] || fail "threads export: $t"
	t=$(title run.trace.json); [ "$t" = "<title>run.trace.json - speedscope</title>" ] || fail "chrome export: $t"
	t=$(title run.collapsedstack.txt); [ "$t" = "<title>run.collapsedstack.txt - speedscope</title>" ] || fail "collapsed export: $t"
	t=$(title broken.speedscope.json); [ "$t" = "<title>speedscope</title>" ] || fail "the browser check cannot tell a broken file: $t"
	checked=$((checked + 1))
else
	echo "note: chromium is not installed; the in-browser check is skipped"
fi
[ "$checked" -gt 0 ] || { echo "skip: neither python3-jsonschema nor chromium is available"; exit 2; }
echo ok
