#!/usr/bin/env bash
# report --format speedscope|collapsed in speedscope itself (headless Chromium, speedscope pinned by npm): both exports of a replayed Run with fp call stacks (workload-c-stacks) open and are named, a broken file is told apart
set -eu
command -v chromium >/dev/null 2>&1 || { echo "skip: chromium is not installed (apt-get install chromium)"; exit 2; }
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

command -v npm >/dev/null || { echo "skip: npm is not installed (apt-get install npm)"; exit 2; }
# speedscope pinned by tests/cli/regions_viewers/package-lock.json, installed
# once per build directory (its own copy: regions_viewers.sh and
# report_stacks_viewers.sh may be installing theirs at the same moment under ctest -j).
dest="$NUNATAK_BUILD_DIR/stacks-browser"
mkdir -p "$dest"
cp "$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package.json" \
	"$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package-lock.json" "$dest/"
release="$dest/node_modules/speedscope/dist/release"
if [ ! -f "$release/file-format-schema.json" ]; then
	(cd "$dest" && { npm ci --offline --no-audit --no-fund >npm.log 2>&1 ||
		timeout 180 npm ci --prefer-offline --no-audit --no-fund >>npm.log 2>&1; }) ||
		{ echo "skip: could not install speedscope from npm (offline?): $(tail -1 "$dest/npm.log")"; exit 2; }
fi
cp -r "$release"/. www/
# The server binds a port the kernel picks and writes it down: a free port
# looked up first and bound later may meanwhile be taken by another test's
# socket (ctest -j).
(cd www && exec python3 -c 'import http.server, os, sys
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()' "$tmp/port" >/dev/null 2>&1) &
server=$!
for _ in $(seq 600); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port" 2>/dev/null) || fail "the page server did not start within 60 s"
title() { # the page title after speedscope loaded $1 (it names the profile there)
	local ud; ud=$(mktemp -d)
	timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$ud" --virtual-time-budget=10000 --dump-dom \
		"http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/$1" 2>/dev/null |
		grep -o '<title>[^<]*</title>' || true
	rm -rf "$ud"
}
printf '{"shared":{"frames":[]},"profiles":[{"type":"sampled"}]}' >www/broken.speedscope.json
t=$(title run.speedscope.json); [ "$t" = "<title>workload - speedscope</title>" ] || fail "speedscope export: $t"
t=$(title run.collapsedstack.txt); [ "$t" = "<title>run.collapsedstack.txt - speedscope</title>" ] || fail "collapsed export: $t"
t=$(title broken.speedscope.json); [ "$t" = "<title>speedscope</title>" ] || fail "the browser check cannot tell a broken file: $t"
echo ok
