#!/bin/bash
# a bundled example run from inside nunatak's own checkout is named after the program (example_heat), not the repository; a program in another git repository still takes that repository's name (the cascade holds), and the checkout gets no .nunatak of its own with -o
set -eu
command -v git >/dev/null || { echo "skip: git not installed (the cascade asks git for the toplevel)"; exit 2; }
git -C "$NUNATAK_SOURCE_DIR" rev-parse --show-toplevel >/dev/null 2>&1 ||
	{ echo "skip: the source tree is not a git checkout (a tarball): no repository name to avoid"; exit 2; }
ex="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$ex" ] || { echo "FAIL: $ex not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
name_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$1"; }
had_runs=0
[ -e "$NUNATAK_SOURCE_DIR/.nunatak" ] && had_runs=1
(cd "$NUNATAK_SOURCE_DIR" && "$NUNATAK" run -q --json -o "$tmp/c" -- "$ex" 64 20 0 >"$tmp/c.json" 2>"$tmp/c.err") ||
	{ cat "$tmp/c.err"; echo "FAIL: the example's Run"; exit 1; }
[ "$(name_of "$tmp/c.json")" = example_heat ] || { echo "FAIL: the example's Run is named $(name_of "$tmp/c.json")"; exit 1; }
[ "$had_runs" = 1 ] || [ ! -e "$NUNATAK_SOURCE_DIR/.nunatak" ] || { echo "FAIL: -o wrote a .nunatak into the checkout"; exit 1; }
# Another project's repository still names its Runs.
mkdir "$tmp/solver-project"
git -C "$tmp/solver-project" init -q
cp "$ex" "$tmp/solver-project/solver"
(cd "$tmp/solver-project" && "$NUNATAK" run -q --json -o "$tmp/s" -- ./solver 64 20 0 >"$tmp/s.json" 2>"$tmp/s.err") ||
	{ cat "$tmp/s.err"; echo "FAIL: the project's Run"; exit 1; }
[ "$(name_of "$tmp/s.json")" = solver-project ] || { echo "FAIL: a project's Run is named $(name_of "$tmp/s.json")"; exit 1; }
echo "ok: example_heat in nunatak's checkout, solver-project in its own"
