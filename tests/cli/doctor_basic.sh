#!/usr/bin/env bash
# nunatak doctor: the status table format, --json validity, --help, exit code 0
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

"$NUNATAK" doctor >out.txt 2>err.txt || { echo "doctor exited $?"; cat err.txt; exit 1; }
# Every line is `status name detail` or an indented `-> remedy`; a trailing
# degradation summary may follow a blank line.
awk 'NF==0{tail=1; next}
     tail{next}
     /^(ok      |warning |missing ) [a-z0-9-]+ +/ {next}
     /^         -> / {next}
     {print "bad line: " $0; bad=1}
     END{exit bad}' out.txt
for name in cpu-collector perf-permissions hardware-counters llvm addr2line compiler \
	mpi-launcher hdf5 preload-sampler openmp-tool debuginfod configuration; do
	grep -qE "^[a-z]+ +$name " out.txt || { echo "check $name missing"; cat out.txt; exit 1; }
done
# Not-ok checks always carry a remedy line right after them.
awk '/^(warning|missing) /{want=1; next} want && !/^         -> /{print "no remedy before: " $0; exit 1} {want=0}' out.txt
grep -q target-binary out.txt && { echo "target checks without a command"; exit 1; }

"$NUNATAK" doctor --json -- /bin/sh -c true >out.json
python3 -m json.tool out.json >/dev/null
python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"checks", "degradations"}, d.keys()
names = [c["name"] for c in d["checks"]]
for c in d["checks"]:
    assert set(c) == {"name", "status", "detail", "remedy"}, c
    assert c["status"] in ("ok", "warning", "missing"), c
    assert c["status"] == "ok" or c["remedy"], c
assert "target-binary" in names and "target-attribution" in names, names
for g in d["degradations"]:
    assert set(g) == {"name", "message", "remedy"}, g
try:
    import jsonschema
except ImportError:
    jsonschema = None
    print("note: python3-jsonschema absent: not validated against docs/schemas/doctor.json")
if jsonschema:
    import os
    schema = json.load(open(os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "docs/schemas/doctor.json")))
    jsonschema.Draft202012Validator(schema).validate(d)
PY

"$NUNATAK" doctor --help >help.txt
grep -q '^usage: nunatak doctor' help.txt
grep -q -- '--json' help.txt
if grep -q -- '--replay' help.txt; then echo "hidden option shown"; exit 1; fi
"$NUNATAK" help doctor | cmp - help.txt

set +e
"$NUNATAK" doctor --bogus 2>err.txt
rc=$?
set -e
[ "$rc" = 125 ] || { echo "usage error exited $rc"; exit 1; }
grep -q 'unknown option --bogus for `nunatak doctor`; see `nunatak doctor --help`' err.txt
echo ok
