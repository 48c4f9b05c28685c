#!/usr/bin/env bash
# option parsing mistakes: a valued option never swallows `--`, --freq 0 refused, scope-profiler --version
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }

# `--name -- ./app`: the name is missing; `--` must not become the name with
# `./app` reported as a stray argument.
for args in "--name" "-o" "--output"; do
	rc=0
	"$NUNATAK" run $args -- true >out.txt 2>err.txt || rc=$?
	[ "$rc" = 125 ] || fail "run $args -- true: exit $rc ($(cat err.txt))"
	grep -q "option $args expects a value" err.txt || fail "run $args --: $(cat err.txt)"
	[ ! -e .nunatak ] || fail "run $args --: a Run was started"
done
# the value may still be given with `=` or as the next word
rc=0
"$NUNATAK" run --name=-- --bogus -- true >/dev/null 2>err.txt || rc=$?
grep -q "unknown option --bogus" err.txt || fail "--name=--: $(cat err.txt)"

# --freq 0 is not "the default frequency": it is refused like any non-positive rate
for f in 0 -5; do
	rc=0
	"$NUNATAK" run --freq "$f" -- true >out.txt 2>err.txt || rc=$?
	[ "$rc" = 125 ] || fail "run --freq $f: exit $rc"
	grep -q -- "--freq expects a positive number of Hz" err.txt || fail "--freq $f: $(cat err.txt)"
	[ ! -e .nunatak ] || fail "run --freq $f: a Run was started"
done

# an out-of-range --freq is echoed as typed (not 1e+07) and blamed on the command line
rc=0
"$NUNATAK" run --freq 9999999 -- true >out.txt 2>err.txt || rc=$?
[ "$rc" = 125 ] || fail "run --freq 9999999: exit $rc"
grep -qF "command line: sampling.frequency = 9999999 is out of range [1, 1000000]" err.txt ||
	fail "--freq 9999999: $(cat err.txt)"

# `help regions <verb>` is that verb's help, as `regions <verb> --help` is
"$NUNATAK" help regions inspect >out.txt || fail "help regions inspect exited $?"
head -1 out.txt | grep -qF "usage: nunatak regions inspect PATH..." || fail "help regions inspect: $(head -1 out.txt)"

# regions: a typed value the option cannot mean is refused, not read as the default
mkdir traces
cp "$NUNATAK_SOURCE_DIR/tests/fuzz/corpus/fuzz_spt_reader/v2_le" traces/t_rank00000.spt
for args in "tree traces --depth -5:--depth expects 0" "plot traces -o p.html --max-calls 0:--max-calls expects a positive" \
	"plot traces -o p.html --max-calls -1:--max-calls expects a positive" "lines traces -n -1:--top expects 0"; do
	rc=0
	"$NUNATAK" regions ${args%%:*} >/dev/null 2>err.txt || rc=$?
	[ "$rc" = 125 ] || fail "regions ${args%%:*}: exit $rc ($(cat err.txt))"
	grep -qF -- "${args#*:}" err.txt || fail "regions ${args%%:*}: $(cat err.txt)"
done
[ ! -e p.html ] || fail "plot wrote a page despite a bad --max-calls"
"$NUNATAK" regions tree traces --depth 0 >/dev/null || fail "--depth 0 refused"
"$NUNATAK" regions plot traces -o p.html --max-calls 5 || fail "--max-calls 5 refused"

# the alias answers --version like nunatak does
out=$("$SCOPE_PROFILER_BIN" --version) || fail "scope-profiler --version exited $?"
want=$("$NUNATAK" --version)
[ "$out" = "scope-profiler (nunatak) ${want#nunatak }" ] || fail "scope-profiler --version: $out"
echo ok
