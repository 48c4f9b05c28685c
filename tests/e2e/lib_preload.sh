#!/usr/bin/env bash
# libscope_profiler preloaded into an uninstrumented program (thread created after start) and through a wrapper shell: .sps checked by an independent reader against the ELF segments
set -eu
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 2; }
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_DISABLE || true
check() { PYTHONPATH="$S/tests/e2e" python3 - "$@"; }

# .sps checks: tests/e2e/lib_sps_check.py (shared with the other sampler test).

echo "== preload sampler on an uninstrumented program (thread created after start)"
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
  echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
cc=$(command -v cc || command -v gcc || true)
[ -n "$cc" ] || { echo "skip: no C compiler for the uninstrumented program"; exit 2; }
"$cc" -O1 -g -pthread "$S/tests/e2e/lib_spin.c" -o "$tmp/spin"
# ld.so splits LD_PRELOAD at spaces: a build under "a dir/" is named
# through a link of the test's own, as nunatak itself does (collect/preload_path.c).
ln -s "$B/lib/libscope_profiler.so" "$tmp/libscope_profiler.so"
LD_PRELOAD="$tmp/libscope_profiler.so" SCOPE_PROFILER_SAMPLE_HZ=1000 \
  SCOPE_PROFILER_PREFIX="$tmp/spin" "$tmp/spin" >"$tmp/spin.out"
grep -q "spin: done" "$tmp/spin.out"   # exit 0: no EINTR from nanosleep or read
[ ! -e "$tmp/spin_rank00000.spt" ]     # no region API used: samples only
check "$tmp/spin_rank00000.sps" "$tmp/spin" <<'PY'
import sys
from lib_sps_check import check
# the late thread's 0.4 s of CPU: 400 expirations at 1000 Hz (signals come at
# the kernel tick at most, 37 seen at load 16; each weighs what it stood for)
s = check(sys.argv[1], sys.argv[2], 120, 1000)
assert s["regions"] == [] and all(r == -1 for r, _, _ in s["samples"])
assert any(m["path"].endswith("libscope_profiler.so") or "libscope_profiler" in m["path"]
           for m in s["modules"]), s["modules"]
print("preload .sps ok: %d Hz effective, %d ticks, %d modules" % (s["hz"], s["ticks"], len(s["modules"])))
PY
echo "== preload through a wrapper shell: the busiest process's samples are kept"
LD_PRELOAD="$tmp/libscope_profiler.so" SCOPE_PROFILER_SAMPLE_HZ=1000 \
  SCOPE_PROFILER_PREFIX="$tmp/wrap" sh -c "'$tmp/spin' >/dev/null; true"
check "$tmp/wrap_rank00000.sps" "$tmp/spin" <<'PY'
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from lib_reader import read_sps
s = read_sps(sys.argv[1])
assert s["ticks"] >= 20, s["ticks"]   # spin's, not the shell's (a shell has ~0)
assert s["modules"][0]["path"] == sys.argv[2], s["modules"][0]
print("wrapper ok: %d ticks from %s" % (s["ticks"], s["modules"][0]["path"]))
PY
echo "all preload checks passed"
