#!/bin/bash
# nunatak run --json -- app | jq .: stdout holds only the JSON document, the application's stdout goes to stderr, its exit code passes; --json-file FILE keeps the application's stdout untouched; --json-file - is --json
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to parse JSON"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.txt; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }
printf '#!/bin/sh\necho "app says hello"\necho "app warns" >&2\nexit 3\n' > app.sh
chmod +x app.sh
parse() { python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["exit_code"] == 3 and d["run"], d'; }

set +e
"$NUNATAK" run --json -- ./app.sh 2> err.txt | tee out.txt | parse
rcs=("${PIPESTATUS[@]}")
set -e
[ "${rcs[0]}" -eq 3 ] || fail "exit code ${rcs[0]}, expected the application's 3"
[ "${rcs[2]}" -eq 0 ] || fail "stdout is not one JSON document"
grep -q "app says hello" out.txt && fail "the application's stdout is mixed into the JSON"
grep -q "app says hello" err.txt || fail "the application's stdout was lost (expected on stderr)"
grep -q "app warns" err.txt || fail "the application's stderr was lost"

set +e
"$NUNATAK" run --json-file run.json -- ./app.sh > out2.txt 2> err2.txt; rc=$?
set -e
[ "$rc" -eq 3 ] || fail "--json-file: exit code $rc"
[ "$(cat out2.txt)" = "app says hello" ] || fail "--json-file must leave the application's stdout alone"
parse < run.json || fail "--json-file wrote no JSON document"

set +e
"$NUNATAK" run --json-file - -- ./app.sh 2> /dev/null > out3.txt
set -e
parse < out3.txt || fail "--json-file - is not --json"

# An unwritable FILE is refused before the application runs.
set +e
"$NUNATAK" run --json-file /nonexistent/dir/run.json -- sh -c 'echo ran > ran.txt' 2> err4.txt; rc=$?
set -e
[ "$rc" -eq 125 ] || fail "unwritable --json-file: exit $rc, expected 125"
[ ! -e ran.txt ] || fail "the application ran although the JSON could not be written"
grep -q "json-file /nonexistent/dir/run.json" err4.txt || fail "no error naming the file"
echo ok
