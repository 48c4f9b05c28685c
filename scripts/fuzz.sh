#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A longer fuzzing session than the test suite's 20 s per target: builds the
# libFuzzer targets (clang, ASan+UBSan) in build-fuzz/ and runs each for
# SECONDS, JOBS targets at a time, under the same limits as the suite (no
# input may make a parser allocate more than 512 MB at once or hold 2 GB).
# New inputs that widen coverage go to build-fuzz/fuzz-work/<target>/; a
# crash, leak or limit breach leaves its input in fuzz-work/<target>.found/
# (crash-*, leak-*, oom-*, malloc-limit-*, timeout-*): copy it into
# tests/fuzz/corpus/<target>/ with the fix, so the suite replays it forever.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (JOBS=n in the environment)
set -eu
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
jobs=${JOBS:-2}
CC=clang cmake -S . -B build-fuzz -DNUNATAK_SANITIZE=ON -DNUNATAK_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j"$jobs"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
# libhdf5 1.10 loops forever on some corrupt files: fuzz_trace_h5 writes its
# files through the HDF5 API unless FUZZ_H5_NO_RAW=0 (then the raw bytes too).
export FUZZ_H5_NO_RAW=${FUZZ_H5_NO_RAW:-1}
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions='$PWD/tests/fuzz/lsan.supp':print_suppressions=0" # quoted: the path may hold spaces
run_one() {
  local t=$1 work=build-fuzz/fuzz-work/$1 rc
  mkdir -p "$work" "$work.found"
  build-fuzz/tests/"$t" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -timeout=25 -artifact_prefix="$work.found/" "$work" "tests/fuzz/corpus/$t" >"$work.log" 2>&1 &&
    rc=0 || rc=$?
  local runs
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work.log")
  if [ $rc -eq 0 ]; then
    printf '%-22s %12s executions  ok\n' "$t" "${runs:-?}"
  else
    printf '%-22s %12s executions  FAILED (exit %d): %s\n' "$t" "${runs:-?}" $rc \
      "$(ls "$work.found"/* 2>/dev/null | head -1)"
  fi
  return $rc
}
fail=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || fail=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
[ $fail -eq 0 ] || echo "logs: build-fuzz/fuzz-work/<target>.log" >&2
exit $fail
