#!/bin/bash
# a Run named after the git repository still names its target: the payload's run.app is the application's command with the launcher split off (what the page's header shows first), for a plain command and through a wrapper
set -eu
command -v git >/dev/null || { echo "skip: git is not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed to parse the payload"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/solver-repo"
cd "$tmp/solver-repo"
git init -q .
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" > nunatak.toml
printf '#!/bin/sh\nexit 0\n' > lmp
chmod +x lmp
# check RUN WANT_APP: the Run takes the repository's name; run.app is WANT_APP
check() {
	"$NUNATAK" report --json "$1" > payload.json 2>/dev/null || fail "report --json $1"
	python3 - payload.json "$2" <<'PY' || fail "payload of $1: $(head -c 600 payload.json)"
import json, sys
run = json.load(open(sys.argv[1]))["run"]
assert run["name"] == "solver-repo", run
assert run["app"] == json.loads(sys.argv[2]), (run["app"], sys.argv[2])
PY
}
"$NUNATAK" run -q -o r1 -- ./lmp -in in.lj > /dev/null 2> err.txt || { cat err.txt; fail "run ./lmp"; }
check r1 '["./lmp", "-in", "in.lj"]'
"$NUNATAK" run -q -o r2 -- env OMP_NUM_THREADS=2 ./lmp -in in.lj > /dev/null 2> err.txt || { cat err.txt; fail "run env ./lmp"; }
check r2 '["./lmp", "-in", "in.lj"]'
grep -q '"command":\["env","OMP_NUM_THREADS=2","./lmp","-in","in.lj"\]' r2/report.html ||
	fail "the page lost the whole command"
echo ok
