#!/usr/bin/env bash
# --strict refusing before launch: exit 121, the app never runs, no manifest-less Run directory is left behind, --json says run null
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to parse --json"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
# A script target is always degraded before launch (target-binary: not an ELF binary).
printf '#!/bin/sh\ntouch "%s/ran"\n' "$tmp" >app.sh
chmod +x app.sh

rc=0
"$NUNATAK" run -q --strict -- ./app.sh >out.txt 2>err.txt || rc=$?
[ "$rc" = 121 ] || fail "--strict: exit $rc ($(cat err.txt))"
grep -q "degraded \[target-binary\]" err.txt || fail "no pre-launch degradation: $(cat err.txt)"
[ ! -e ran ] || fail "--strict ran the application despite a degradation"
left=$(find .nunatak -mindepth 1 -maxdepth 1 ! -name .gitignore 2>/dev/null)
[ -z "$left" ] || fail "an empty Run directory was left: $left"

rc=0
"$NUNATAK" run -q --strict -o out-run -- ./app.sh >out.txt 2>err.txt || rc=$?
[ "$rc" = 121 ] && [ ! -e out-run ] || fail "-o out-run: exit $rc, left: $(ls -A out-run 2>&1)"
# a directory the user made stays (emptied of what nunatak put there)
mkdir mine
rc=0
"$NUNATAK" run -q --strict -o mine -- ./app.sh >/dev/null 2>&1 || rc=$?
[ "$rc" = 121 ] && [ -d mine ] && [ -z "$(ls -A mine)" ] || fail "-o mine: exit $rc, $(ls -A mine 2>&1)"

rc=0
"$NUNATAK" run -q --strict --json -- ./app.sh >out.json 2>/dev/null || rc=$?
[ "$rc" = 121 ] || fail "--strict --json: exit $rc"
python3 -c '
import json; d = json.load(open("out.json"))
assert d["run"] is None and d["exit_code"] == 121 and d["error"]["code"] == "run.strict", d' ||
	fail "--strict --json: $(cat out.json)"
echo ok
