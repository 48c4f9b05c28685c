#!/bin/bash
# The run bench's smoke run (issue 27): bench/run/run.sh measures the heat example beside NUNATAK by default and names it on its first line, refuses an APP that is set but missing (two sessions' figures had silently measured the fallback program instead), and with BASE prints the interleaved own-CPU comparison of two binaries, warm and with an empty tool cache; cold_parts.sh splits the cold-only CPU (kernel table, tool probes, the rest), with BASE for both binaries in the same rounds; they must run, not meet a figure
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	echo "skip: the bench's smoke runs in the gcc pass (a sanitized build's costs are not its subject)"
	exit 2
fi
need_perf
HEAT="$NUNATAK_BUILD_DIR/examples/c/example_heat_disabled"
[ -x "$HEAT" ] || { echo "skip: the heat example is not built ($HEAT)"; exit 2; }
BENCH="$NUNATAK_SOURCE_DIR/bench/run/run.sh"
export XDG_CACHE_HOME="$WORK/cache"

# An APP that does not exist is an error naming it, before anything runs.
set +e
APP="$WORK/no such program" FALLBACK_SRC="$NUNATAK_SOURCE_DIR/tests/fixtures/run/two_hot.c" \
	NUNATAK="$NUNATAK" bash "$BENCH" </dev/null >"$WORK/missing.txt" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "a missing APP gave exit $rc, expected 1"
grep -q "APP=$WORK/no such program is not an executable file" "$WORK/missing.txt" ||
	fail "a missing APP is not named"
grep -q "^program:" "$WORK/missing.txt" && fail "a missing APP still measured a program"

# The default program: the heat example of NUNATAK's build, named on line 1;
# BASE is the same binary here (the comparison's lines, not its figures).
(cd "$WORK" && DURATIONS=0.05 PAIRS=5 NUNATAK="$NUNATAK" BASE="$NUNATAK" \
	bash "$BENCH" </dev/null >"$WORK/out.txt" 2>&1) || fail "bench/run/run.sh failed"
cat "$WORK/out.txt"
[ "$(head -n 1 "$WORK/out.txt")" = "program: $HEAT" ] ||
	fail "line 1 does not name the heat example: $(head -n 1 "$WORK/out.txt")"
grep -qF "~0.05 s: $HEAT 512 " "$WORK/out.txt" || fail "the duration line does not run the heat example"
grep -qE "^~0\.05 s: .*; 1-min load [0-9]+\.[0-9]{2} at the first pair, [0-9]+\.[0-9]{2} after the last\)$" \
	"$WORK/out.txt" || fail "the duration line does not give the load"
num='[0-9]+\.[0-9]{3}'
grep -qE "nunatak's own CPU \(robust to other load\): -?$num s, with an empty tool cache -?$num s" \
	"$WORK/out.txt" || fail "no own-CPU line"
for kind in "cold \(empty tool cache\)" "warm"; do
	grep -qE "^    $kind +BASE -?$num s, NUNATAK -?$num s; NUNATAK - BASE per pair: median [-+]$num s" \
		"$WORK/out.txt" || fail "no BASE comparison line for $kind"
done
grep -q "the calibration's figure: not compared (NUNATAK_NO_CALIBRATE=1)" "$WORK/out.txt" ||
	fail "NUNATAK_NO_CALIBRATE=1 did not keep the bench from calibrating"

# cold_parts.sh: the cold-only CPU split into its parts, on the same program;
# BASE again the same binary (the comparison's lines, not its figures).
(cd "$WORK" && ROUNDS=3 ARGS="512 30 0" NUNATAK="$NUNATAK" BASE="$NUNATAK" \
	bash "$NUNATAK_SOURCE_DIR/bench/run/cold_parts.sh" </dev/null >"$WORK/parts.txt" 2>&1) ||
	fail "bench/run/cold_parts.sh failed"
cat "$WORK/parts.txt"
[ "$(head -n 1 "$WORK/parts.txt")" = "program: $HEAT 512 30 0" ] || fail "cold_parts: line 1"
grep -qE "^3 rounds, load [0-9.]+ [0-9.]+ [0-9.]+ " "$WORK/parts.txt" || fail "cold_parts: no load"
for what in "cold - warm \(all the cold-only CPU\): [-+]$num" \
	"the kernel's table \(cold - cold\+k\): [-+]$num" "perf --version alone: $num" \
	"llvm-symbolizer --version alone: $num|no llvm-symbolizer --version alone: nan"; do
	grep -qE "$what" "$WORK/parts.txt" || fail "cold_parts: no '$what'"
done
for what in "cold Run" "warm Run" "the kernel's table \(cold - cold\+k\)" \
	"all the cold-only CPU \(cold - warm\)"; do
	grep -qE "^    $what +BASE -?$num, NUNATAK -?$num; [-+]$num \([-+]$num, [-+]$num\)$" \
		"$WORK/parts.txt" || fail "cold_parts: no BASE comparison line for '$what'"
done
echo ok
