#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite: a -Werror build with gcc and its tests, then one pass
# of the tests under ASan+UBSan built with clang, which also runs the fuzz
# targets for a bounded time, then the library's thread tests under
# ThreadSanitizer (clang). Usage: scripts/test.sh [--no-sanitize]
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)
echo "== build (gcc, -Werror) and test"
cmake -S . -B build -DNUNATAK_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
[ "${1:-}" = --no-sanitize ] && exit 0
echo "== build (clang, ASan+UBSan, fuzz targets) and test"
CC=clang cmake -S . -B build-asan -DNUNATAK_WERROR=ON -DNUNATAK_SANITIZE=ON \
  -DNUNATAK_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")
echo "== the library's thread tests under ThreadSanitizer (clang)"
CC=clang cmake -S . -B build-tsan -DNUNATAK_WERROR=ON -DNUNATAK_TSAN=ON \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
tsan_tests=()
for f in tests/unit/lib/test_*.c; do tsan_tests+=("unit_lib_$(basename "$f" .c)"); done
cmake --build build-tsan -j"$jobs" --target "${tsan_tests[@]}" example_threads
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --output-on-failure -j"$jobs" -R '^unit_lib_')
# The multi-threaded example with the sampler on: 4 workers, 250 Hz timers.
tsan_out=$(mktemp -d)
TSAN_OPTIONS=halt_on_error=1 SCOPE_PROFILER_SAMPLE_HZ=250 SCOPE_PROFILER_PREFIX="$tsan_out/thr" \
  build-tsan/examples/c/example_threads 4 200 1
rm -rf "$tsan_out"
