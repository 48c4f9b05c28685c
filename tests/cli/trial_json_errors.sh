#!/usr/bin/env bash
# --json with errors: stdout holds exactly one JSON error document (report, doctor, run), exit 125
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
command -v python3 >/dev/null || { echo "skip: python3 is needed to check the JSON"; exit 2; }
fail() { echo "FAIL: $*"; exit 1; }

# expect CODE WANT_ERROR_CODE -- ARGS...: exit status CODE, stdout one JSON document whose
# error.code is WANT_ERROR_CODE, the message also on stderr.
expect() {
	local want_rc=$1 want_code=$2
	shift 3
	local rc=0
	"$NUNATAK" "$@" >out.json 2>err.txt || rc=$?
	[ "$rc" = "$want_rc" ] || fail "nunatak $*: exit $rc, want $want_rc ($(cat err.txt))"
	python3 - "$want_code" <<'PY' || fail "nunatak $*: stdout is not one JSON error document: $(cat out.json)"
import json, sys
doc = json.load(open("out.json"))
assert doc["error"]["code"] == sys.argv[1], doc
assert doc["error"]["message"], doc
PY
	grep -q "error: " err.txt || fail "nunatak $*: no error on stderr"
}

# report: no Run at all, a path that does not exist, a newer schema, a usage error
# given before --json (the parser stops there, --json must still be honoured).
expect 125 run.none -- report --json
grep -qF "run \`nunatak run -- <command>\` first, or name a Run directory" out.json ||
	fail "no Run: the message should say what to do: $(cat out.json)"
! grep -q "No such file" out.json || fail "no Run: errno noise: $(cat out.json)"
expect 125 run.not_a_run -- report --json "$tmp/nonexistent"
grep -q "does not exist" out.json || fail "a missing path should say so: $(cat out.json)"
mkdir newer
printf '{"format":{"name":"nunatak-run","schema":99,"generated_by":"nunatak 9"}}\n' \
	>newer/manifest.json
expect 125 run.newer_schema -- report --json newer
grep -q "upgrade nunatak" out.json || fail "newer schema: $(cat out.json)"
# a file where the Run directory belongs (users pass RUN/manifest.json)
expect 125 run.not_a_run -- report --json newer/manifest.json
grep -q "is a file; give the Run directory" out.json || fail "file as Run: $(cat out.json)"
# a corrupt manifest names the file and line
mkdir corrupt
printf '{"format": {\n' >corrupt/manifest.json
expect 125 run.corrupt -- report --json corrupt
grep -q "corrupt/manifest.json:2" out.json || fail "corrupt manifest: $(cat out.json)"
expect 125 usage -- report --bogus --json
# doctor and run: a usage error before --json
expect 125 usage -- doctor --bogus --json
expect 125 usage -- run --bogus --json -- true
expect 125 usage -- run --json --
expect 125 usage -- calibrate --bogus --json
# run: a failure inside the pipeline (before launch) is the same document,
# with the Run's fields beside "error" (cli_error_json writes both)
expect 127 exec.not_found -- run --json -- "$tmp/no-such-app"
python3 -c 'import json; d = json.load(open("out.json")); assert d["exit_code"] == 127 and d["degradations"] == [], d' ||
	fail "run failure document: $(cat out.json)"
mkdir traces
expect 125 usage -- regions inspect --json traces --frmt
# without --json, stdout stays empty
rc=0
"$NUNATAK" report "$tmp/nonexistent" >out.txt 2>err.txt || rc=$?
[ "$rc" = 125 ] && [ ! -s out.txt ] || fail "report without --json: exit $rc, stdout $(cat out.txt)"
echo ok
