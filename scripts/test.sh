#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite: a -Werror build with gcc and its tests, then one pass
# of the tests under ASan+UBSan built with clang, which also runs the fuzz
# targets for a bounded time, then the library's thread tests under
# ThreadSanitizer (clang). Usage: scripts/test.sh [--no-sanitize]
#
# Every pass runs whatever happened in the one before (a failing gcc pass
# must not hide what the sanitizers find). Each pass ends with one line of
# counts, and the script ends with one line per pass and then the total alone
# on its line, "N passed, N failed" (skips are listed by ctest and counted
# apart); it exits 1 when anything failed. A build that fails counts as one
# failure of its pass, its tests as not run.
set -u
cd "$(dirname "$0")/.."
scripts/deps.sh test || { echo "scripts/deps.sh test failed: the packages the tests need are missing"; exit 1; }
jobs=$(nproc)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
summary=() total_pass=0 total_fail=0 total_skip=0

# count <pass name> <ctest log> <build ok 0|1>: adds the pass's line.
count() {
	local name=$1 log=$2 built=$3 p=0 f=0 s=0 n=0 line
	if [ "$built" = 1 ]; then
		line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
		if [ -n "$line" ]; then
			n=${line##* out of }
			f=$(echo "$line" | sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed.*/\1/')
			s=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log")
			p=$((n - f - s))
		else
			f=1 # ctest printed no summary: it did not run
		fi
	else
		f=1
	fi
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
	local what="$p passed, $f failed, $s skipped"
	[ "$built" = 1 ] || what="$what (the build failed: its tests did not run)"
	summary+=("pass $name: $what")
	echo "== pass $name: $what"
}

echo "== build (gcc, -Werror) and test"
ok=0
cmake -S . -B build -DNUNATAK_WERROR=ON >/dev/null && cmake --build build -j"$jobs" && ok=1
: >"$logs/gcc"
[ "$ok" = 1 ] && (cd build && ctest --output-on-failure -j"$jobs") 2>&1 | tee "$logs/gcc"
count "gcc -Werror" "$logs/gcc" "$ok"

if [ "${1:-}" != --no-sanitize ]; then
	echo "== build (clang, ASan+UBSan, fuzz targets) and test"
	ok=0
	CC=clang cmake -S . -B build-asan -DNUNATAK_WERROR=ON -DNUNATAK_SANITIZE=ON \
		-DNUNATAK_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
		cmake --build build-asan -j"$jobs" && ok=1
	: >"$logs/asan"
	[ "$ok" = 1 ] && (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j"$jobs") 2>&1 | tee "$logs/asan"
	count "clang ASan+UBSan+fuzz" "$logs/asan" "$ok"

	echo "== the library's thread tests under ThreadSanitizer (clang)"
	tsan_tests=()
	for f in tests/unit/lib/test_*.c; do tsan_tests+=("unit_lib_$(basename "$f" .c)"); done
	ok=0
	CC=clang cmake -S . -B build-tsan -DNUNATAK_WERROR=ON -DNUNATAK_TSAN=ON \
		-DCMAKE_BUILD_TYPE=Debug >/dev/null &&
		cmake --build build-tsan -j"$jobs" --target "${tsan_tests[@]}" example_threads && ok=1
	: >"$logs/tsan"
	[ "$ok" = 1 ] && (cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		ctest --output-on-failure -j"$jobs" -R '^unit_lib_') 2>&1 | tee "$logs/tsan"
	count "clang TSan (library threads)" "$logs/tsan" "$ok"

	# The multi-threaded example with the sampler on: 4 workers, 250 Hz timers.
	if [ "$ok" = 1 ]; then
		tsan_out=$(mktemp -d)
		if TSAN_OPTIONS=halt_on_error=1 SCOPE_PROFILER_SAMPLE_HZ=250 \
			SCOPE_PROFILER_PREFIX="$tsan_out/thr" build-tsan/examples/c/example_threads 4 200 1; then
			r="1 passed, 0 failed, 0 skipped" total_pass=$((total_pass + 1))
		else
			r="0 passed, 1 failed, 0 skipped" total_fail=$((total_fail + 1))
		fi
		rm -rf "$tsan_out"
	else
		r="0 passed, 1 failed, 0 skipped (not built)" total_fail=$((total_fail + 1))
	fi
	summary+=("pass clang TSan (example_threads, sampler on): $r")
	echo "== pass clang TSan (example_threads, sampler on): $r"
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
echo "($total_skip skipped, listed by ctest above)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
