#!/usr/bin/env bash
# run -o into an impossible place: exit 125 before launch, the app never runs, the message says what to do
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to parse --json"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
printf '#!/bin/sh\ntouch "%s/ran"\n' "$tmp" >app.sh
chmod +x app.sh
touch afile

# check OUT WANT: exit 125, WANT in the error, app.sh never ran
check() {
	local out=$1 want=$2 rc=0
	"$NUNATAK" run -q -o "$out" -- ./app.sh >stdout.txt 2>err.txt || rc=$?
	[ "$rc" = 125 ] || fail "-o '$out': exit $rc ($(cat err.txt))"
	grep -qF -- "$want" err.txt || fail "-o '$out': want '$want' in: $(cat err.txt)"
	[ ! -e ran ] || fail "-o '$out': the application ran although the Run could not be created"
}
check /proc/nunatak-trial/run "give -o a path in a writable directory"
check afile "-o afile: exists and is not a directory; choose a new path"
check "" "-o expects a directory path, got ''"

# under --json the failure is still one JSON document on stdout
rc=0
"$NUNATAK" run -q --json -o /proc/nunatak-trial/run -- ./app.sh >out.json 2>/dev/null || rc=$?
[ "$rc" = 125 ] || fail "--json -o /proc/...: exit $rc"
python3 -c 'import json; d = json.load(open("out.json")); assert d["error"]["code"] == "run.create", d' ||
	fail "--json -o /proc/...: $(cat out.json)"
echo ok
