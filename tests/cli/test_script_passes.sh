#!/bin/bash
# scripts/test.sh runs every pass whatever happens (a gcc build that fails does not stop the ASan+UBSan and TSan passes), prints one line of counts per pass and then "N passed, N failed" alone on a line, and exits non-zero when anything failed; cmake and ctest are stand-ins here so the script's own logic is what is checked
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/scripts" "$tmp/tree/tests/unit/lib" "$tmp/bin"
cp "$NUNATAK_SOURCE_DIR/scripts/test.sh" "$tmp/tree/scripts/"
printf '#!/bin/sh\nexit 0\n' >"$tmp/tree/scripts/deps.sh"
chmod +x "$tmp/tree/scripts/deps.sh"
touch "$tmp/tree/tests/unit/lib/test_one.c"
# cmake: configure succeeds; the build of "build" (the gcc pass) fails when
# FAIL_GCC_BUILD is set; the TSan build makes the example a script.
cat >"$tmp/bin/cmake" <<'SH'
#!/bin/bash
echo "cmake $*" >>"$CALLS"
if [ "$1" = --build ]; then
	[ "$2" = build ] && [ -n "${FAIL_GCC_BUILD:-}" ] && { echo "error: the gcc build broke"; exit 1; }
	mkdir -p "$2/examples/c"
	printf '#!/bin/sh\nexit %s\n' "${EXAMPLE_RC:-0}" >"$2/examples/c/example_threads"
	chmod +x "$2/examples/c/example_threads"
fi
exit 0
SH
# ctest: answers as ctest does, per build directory.
cat >"$tmp/bin/ctest" <<'SH'
#!/bin/bash
d=$(basename "$PWD")
echo "ctest in $d" >>"$CALLS"
case $d in
build) echo "100% tests passed, 0 tests failed out of 10"; exit 0 ;;
build-asan)
	printf '%s\n' "90% tests passed, 2 tests failed out of 20" "" "The following tests did not run:" \
		"	  3 - cli_a (Skipped)" "	  4 - cli_b (Skipped)" "" "The following tests FAILED:" \
		"	  5 - cli_c (Failed)" "	  6 - cli_d (Timeout)"
	exit 8 ;;
build-tsan) echo "100% tests passed, 0 tests failed out of 3"; exit 0 ;;
esac
SH
chmod +x "$tmp/bin/"*
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }
run() { rc=0; CALLS="$tmp/calls" PATH="$tmp/bin:$PATH" "$@" bash "$tmp/tree/scripts/test.sh" >"$tmp/out" 2>&1 </dev/null || rc=$?; }

: >"$tmp/calls"
run env FAIL_GCC_BUILD=1
[ "$rc" != 0 ] || fail "exit 0 with a failed build and two failed tests"
grep -q "ctest in build-asan" "$tmp/calls" || fail "the ASan pass did not run after the gcc build failed"
grep -q "ctest in build-tsan" "$tmp/calls" || fail "the TSan pass did not run"
grep -q "ctest in build$" "$tmp/calls" && fail "ctest ran in a build that failed"
grep -qx "pass gcc -Werror: 0 passed, 1 failed, 0 skipped (the build failed: its tests did not run)" "$tmp/out" || fail "no line for the failed gcc build"
grep -qx "pass clang ASan+UBSan+fuzz: 16 passed, 2 failed, 2 skipped" "$tmp/out" || fail "ASan pass counts"
grep -qx "pass clang TSan (library threads): 3 passed, 0 failed, 0 skipped" "$tmp/out" || fail "TSan pass counts"
grep -qx "pass clang TSan (example_threads, sampler on): 1 passed, 0 failed, 0 skipped" "$tmp/out" || fail "example line"
[ "$(tail -1 "$tmp/out")" = "20 passed, 3 failed" ] || fail "the last line is not the total: $(tail -1 "$tmp/out")"

: >"$tmp/calls"
run env
[ "$rc" != 0 ] || fail "exit 0 with two failed ASan tests"
[ "$(tail -1 "$tmp/out")" = "30 passed, 2 failed" ] || fail "total: $(tail -1 "$tmp/out")"

# All passing: exit 0; --no-sanitize runs the gcc pass only.
sed -i 's/^build-asan)$/build-asan-none)/' "$tmp/bin/ctest"
sed -i 's/^build-tsan) echo/build-asan|build-tsan) echo/' "$tmp/bin/ctest"
run env
[ "$rc" = 0 ] || fail "exit $rc when everything passed"
[ "$(tail -1 "$tmp/out")" = "17 passed, 0 failed" ] || fail "total when all pass: $(tail -1 "$tmp/out")"
: >"$tmp/calls"
rc=0; CALLS="$tmp/calls" PATH="$tmp/bin:$PATH" bash "$tmp/tree/scripts/test.sh" --no-sanitize >"$tmp/out" 2>&1 </dev/null || rc=$?
[ "$rc" = 0 ] && [ "$(tail -1 "$tmp/out")" = "10 passed, 0 failed" ] || fail "--no-sanitize ($rc)"
grep -q "build-asan" "$tmp/calls" && fail "--no-sanitize built the ASan tree"
# A failing example under TSan fails the run.
run env EXAMPLE_RC=66
[ "$rc" != 0 ] && [ "$(tail -1 "$tmp/out")" = "16 passed, 1 failed" ] || fail "a failing TSan example ($rc)"
echo "ok: every pass runs, counts per pass, total last"
