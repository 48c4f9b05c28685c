#!/usr/bin/env bash
# run with a wrong target: program in cwd without ./, a missing path (no such file, not "command not found"), a directory, a too-long --name (Run still created); report names the Run it picked with an absolute path
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
printf '#!/bin/sh\nexit 0\n' >myapp
chmod +x myapp
mkdir adir

# runs CODE WANT ARGS...: exit CODE, WANT in the error, nothing created
runs() {
	local want_rc=$1 want=$2 rc=0
	shift 2
	"$NUNATAK" run "$@" >out.txt 2>err.txt || rc=$?
	[ "$rc" = "$want_rc" ] || fail "run $*: exit $rc, want $want_rc ($(cat err.txt))"
	grep -qF -- "$want" err.txt || fail "run $*: want '$want' in: $(cat err.txt)"
	[ ! -e .nunatak ] || fail "run $*: a Run was created"
}
# like the shell, nunatak does not search the cwd, but it says where the program is
runs 127 "myapp: command not found in PATH; it is in the current directory: run ./myapp" -- myapp
# a directory of the same name in cwd is not suggested
runs 127 "adir: command not found in PATH (check the name, or give a path)" -- adir
# a path that is not there: the file does not exist, no PATH advice
runs 127 "./missing: no such file (check the path" -- ./missing
grep -q "command not found\|give a path" err.txt && fail "a path was given: $(cat err.txt)"
runs 127 "sub/dir/missing: no such file" -- sub/dir/missing
# `chmod +x` is the wrong advice for a directory
runs 126 "./adir: is a directory, not a program" -- ./adir

# a --name longer than a file name allows is cut, not "File name too long"
long=$(printf 'n%.0s' $(seq 300))
rc=0
"$NUNATAK" run -q --name "$long" -- ./myapp >out.txt 2>err.txt || rc=$?
[ "$rc" = 0 ] || fail "run --name <300 chars>: exit $rc ($(cat err.txt))"
run=$(ls .nunatak | grep '^n')
[ "${#run}" = $((128 + 16)) ] || fail "Run directory name: $run (${#run} bytes)"
[ -f ".nunatak/$run/manifest.json" ] || fail "no manifest in .nunatak/$run"

# report without a Run argument says which Run it read, absolutely
mkdir elsewhere
"$NUNATAK" report > out.txt 2> err.txt || fail "report: $(cat err.txt)"
grep -qF "Run: $tmp/.nunatak/$run (the newest under" err.txt ||
	grep -qF "Run: $(readlink -f "$tmp")/.nunatak/$run (the newest under" err.txt ||
	fail "report does not name the Run it picked: $(cat err.txt)"
echo ok
