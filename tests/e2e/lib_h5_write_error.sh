#!/usr/bin/env bash
# libscope_profiler's .h5 that cannot be written (a file size limit, as a full disk): the error names the system's reason (File too large, never a fixed "Permission denied"), the .spt is kept, no temporary file is left, and the program exits with its own status (libhdf5's exit handler no longer crashes it after the failed close, its output flushed)
set -eu
B=${NUNATAK_BUILD_DIR:?}
[ -f "$B/lib/libscope_profiler_h5.so" ] || { echo "skip: built without HDF5 (SP_USE_HDF5=OFF or libhdf5-dev missing)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SCOPE_PROFILER_HDF5 SCOPE_PROFILER_DISABLE SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_EVENTS \
  SP_LOG_LEVEL || true

# Files of at most 4 KiB: the .spt of one thread's few calls fits (~0.5 KiB),
# the .h5 (metadata, groups: over 8 KiB) does not. SIGXFSZ ignored, as a
# write past the limit then fails with EFBIG (a full disk's ENOSPC is the same
# path). Output goes to pipes, which the limit does not bound.
st=0
out=$( (trap '' XFSZ; ulimit -f 4; SCOPE_PROFILER_PREFIX="$tmp/x" \
  exec "$B/examples/c/example_threads" 1 2 1) 2>&1) || st=$?
printf '%s\n' "$out"
[ "$st" = 1 ] || { echo "FAIL: exit status $st, expected 1 (sp_finalize reported the .h5; 139 is a crash at exit)"; exit 1; }
printf '%s\n' "$out" | grep -q "^threads: 1 workers x 2 rounds done" ||
  { echo "FAIL: the program's output was lost (exit handlers did not complete)"; exit 1; }
printf '%s\n' "$out" | grep -qxF "scope_profiler: error: cannot write $tmp/x_rank00000.h5: File too large" ||
  { echo "FAIL: the .h5 error does not name the system's reason (EFBIG)"; exit 1; }
if printf '%s\n' "$out" | grep -q "Permission denied"; then
  echo "FAIL: Permission denied said for a file size limit"; exit 1
fi
[ -s "$tmp/x_rank00000.spt" ] || { echo "FAIL: the .spt was not kept"; exit 1; }
"$B/scope-profiler" inspect "$tmp/x_rank00000.spt" >"$tmp/inspect.txt" ||
  { echo "FAIL: the kept .spt does not read"; cat "$tmp/inspect.txt"; exit 1; }
grep -q "worker" "$tmp/inspect.txt" || { echo "FAIL: the .spt lacks the worker region"; cat "$tmp/inspect.txt"; exit 1; }
left=$(find "$tmp" -name 'x_rank*' ! -name 'x_rank00000.spt')
[ -z "$left" ] || { echo "FAIL: files left beside the .spt: $left"; exit 1; }
echo "ok: .h5 error says File too large, .spt kept and read, exit status 1 with output"
