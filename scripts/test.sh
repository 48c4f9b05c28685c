#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite: a -Werror build with gcc and its tests, then one pass
# of the tests under ASan+UBSan built with clang, which also runs the fuzz
# targets for a bounded time. Usage: scripts/test.sh [--no-sanitize]
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
