#!/bin/bash
# nunatak run exit codes: 127 missing, 126 not executable (nothing created), 125 usage, 121 --strict, application code without a collector
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
cd "$WORK"
code() { set +e; "$@" > out.txt 2> err.txt; echo $?; set -e; }

[ "$(code "$NUNATAK" run -- ./does-not-exist)" -eq 127 ] || fail "missing target must exit 127"
grep -q "does-not-exist: no such file" err.txt || fail "no message for 127"
[ ! -e .nunatak ] || fail "a Run directory was created for a missing target"
printf '#!/bin/sh\nexit 0\n' > notexec.sh
chmod 0644 notexec.sh
[ "$(code "$NUNATAK" run -- ./notexec.sh)" -eq 126 ] || fail "non-executable target must exit 126"
[ ! -e .nunatak ] || fail "a Run directory was created for a non-executable target"
[ "$(code "$NUNATAK" run)" -eq 125 ] || fail "no command must exit 125"
[ "$(code "$NUNATAK" run --bogus -- true)" -eq 125 ] || fail "unknown option must exit 125"
[ "$(code "$NUNATAK" run --source-map nope -- true)" -eq 125 ] || fail "bad --source-map must exit 125"
grep -q -- "--source-map expects OLD=NEW" err.txt || fail "no --source-map message"
"$NUNATAK" run --help | grep -q -- "--strict" || fail "run --help"
"$NUNATAK" report --help | grep -q -- "--json" || fail "report --help"
[ "$(code "$NUNATAK" report "$WORK/nope")" -eq 125 ] || fail "report of a missing Run must exit 125"

# No usable perf: a named degradation announced before launch, the app runs
# once without a collector, and its exit code passes through.
printf '[tools]\nperf = "/nonexistent/perf"\n' > nunatak.toml
printf '#!/bin/sh\necho ran >> side-effect\nexit 7\n' > app.sh
chmod +x app.sh
[ "$(code "$NUNATAK" run -- ./app.sh)" -eq 7 ] || fail "application exit code must pass through"
grep -q "degraded \[cpu-collection-unavailable\]" err.txt || fail "no degradation announced"
grep -q "launching: ./app.sh" err.txt || fail "no 'launching:' line"
[ "$(wc -l < side-effect)" -eq 1 ] || fail "the application must run exactly once"
ls .nunatak/app.sh-*/manifest.json > /dev/null || fail "no Run written without a collector"
# --strict: the degradation becomes exit 121 before launch; nothing runs.
[ "$(code "$NUNATAK" run --strict --json -- ./app.sh)" -eq 121 ] || fail "--strict must exit 121"
grep -Eq -- "--strict: [0-9]+ degradation\(s\) turned into an error" err.txt || fail "no --strict message"
[ "$(wc -l < side-effect)" -eq 1 ] || fail "--strict must not run the application"
python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == 121 and d["error"]["code"] == "run.strict", d
assert "cpu-collection-unavailable" in [x["name"] for x in d["degradations"]], d
try:
    import jsonschema
    schema = json.load(open(os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "docs/schemas/run-result.json")))
    jsonschema.Draft202012Validator(schema).validate(d)
except ImportError:
    pass' out.txt ||
	fail "--strict --json must print one JSON document naming the degradations"
