#!/usr/bin/env bash
# regions export in real viewers: speedscope itself (headless Chromium) loads the speedscope, threads, Chrome-trace and collapsed exports, and visibly rejects a broken one
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
command -v chromium >/dev/null 2>&1 || { echo "skip: chromium is not installed (scripts/deps.sh test installs it)"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/setup.bash"

cp -r "$release"/. www/
# A negative control: speedscope must visibly reject a stack that is not LIFO.
python3 - www/run.speedscope.json www/broken.speedscope.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); e = d["profiles"][0]["events"]; e[1], e[2] = e[2], e[1]
json.dump(d, open(sys.argv[2], "w"))
PY
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
t=$(title run.speedscope.json); [ "$t" = "<title>run - speedscope</title>" ] || fail "speedscope export: $t"
t=$(title threads.speedscope.json); [ "$t" = "<title>th - speedscope</title>" ] || fail "threads export: $t"
t=$(title run.trace.json); [ "$t" = "<title>run.trace.json - speedscope</title>" ] || fail "chrome export: $t"
t=$(title run.collapsedstack.txt); [ "$t" = "<title>run.collapsedstack.txt - speedscope</title>" ] || fail "collapsed export: $t"
t=$(title broken.speedscope.json); [ "$t" = "<title>speedscope</title>" ] || fail "the browser check cannot tell a broken file: $t"
echo ok
