#!/usr/bin/env bash
# libscope_profiler sampler: .sps of the linked heat example, checked by an independent reader against the ELF segments
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

echo "== heat with SCOPE_PROFILER_SAMPLE_HZ=250 (linked library)"
size="512 1500"   # ~0.3 s of CPU: ~60 ticks
[ "${NUNATAK_SANITIZE:-0}" = 1 ] && size="256 300"  # ASan code is ~5x slower
SCOPE_PROFILER_SAMPLE_HZ=250 SP_LOG_LEVEL=info SCOPE_PROFILER_PREFIX="$tmp/heat" \
  "$B/examples/c/example_heat" $size 1 >/dev/null 2>"$tmp/heat.log"
cat "$tmp/heat.log"
grep -Eq "sampling: requested 250 Hz, effective [0-9.]+ Hz" "$tmp/heat.log"
check "$tmp/heat_rank00000.sps" "$tmp/heat_rank00000.spt" "$(readlink -f "$B/examples/c/example_heat")" <<'PY'
import sys
from lib_sps_check import check
from lib_reader import read_spt
s = check(sys.argv[1], sys.argv[3], 20, 250)
t = read_spt(sys.argv[2])
assert s["regions"] == [r["name"] for r in t["regions"]], (s["regions"],)
hot = s["regions"].index("sweep")
n_hot = sum(w for (r, _, _), w in zip(s["samples"], s["weights"]) if r == hot)
# the Jacobi sweep is where heat spends its CPU time
assert n_hot >= 0.5 * s["ticks"], (n_hot, s["ticks"])
print("heat .sps ok: %d Hz effective, %d ticks, %d in sweep" % (s["hz"], s["ticks"], n_hot))
PY

echo "all lib sampling checks passed (preloading: tests/e2e/lib_preload.sh)"
