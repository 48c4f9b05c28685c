#!/usr/bin/env bash
# libscope_profiler from Fortran: the heat1d example and every routine of the Fortran API, compiled here with gfortran against the built module, write traces checked by an independent Python reader
set -eu
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 2; }
command -v gfortran >/dev/null || { echo "skip: gfortran not found (scripts/deps.sh installs it)"; exit 2; }
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
  echo "skip: gfortran would link gcc's ASan runtime next to clang's (the gcc pass runs this test)"; exit 2
fi
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
[ -f "$B/lib/fortran/scope_profiler.mod" ] ||
  { echo "FAIL: gfortran is installed but the build has no lib/fortran/scope_profiler.mod (reconfigure)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL || true
check() { PYTHONPATH="$S/tests/e2e" python3 - "$@"; }

echo "== Fortran example (compiled here with gfortran against the module)"
gfortran -cpp -ffree-line-length-none -O1 -I"$B/lib/fortran" "$S/examples/fortran/heat1d.f90" -o "$tmp/heat1d" \
  -L"$B/lib" -lscope_profiler -Wl,-rpath,"$B/lib"
SCOPE_PROFILER_PREFIX="$tmp/f" "$tmp/heat1d" >"$tmp/f.out"
grep -q "heat1d: u(1)" "$tmp/f.out"
check "$tmp/f_rank00000.spt" <<'PY'
import sys
from lib_reader import read_spt
t = read_spt(sys.argv[1])
R = {r["name"]: r for r in t["regions"]}
got = {k: len(v["starts"]) for k, v in R.items()}
assert got == {"init": 1, "step": 200, "update": 200, "checkpoint": 2}, got
assert R["update"]["file"].endswith("heat1d.f90") and R["update"]["line"] > 0
assert R["step"]["file"] is None and R["step"]["line"] == -1
for s, e in zip(R["checkpoint"]["starts"], R["checkpoint"]["ends"]):
  assert 5.0e6 <= e - s, e - s  # sleeps 5 ms; no upper bound on a loaded machine
print("fortran trace ok:", got)
PY
gfortran -O1 -I"$B/lib/fortran" "$S/tests/e2e/lib_fortran_api.f90" -o "$tmp/fapi" \
  -L"$B/lib" -lscope_profiler -Wl,-rpath,"$B/lib"
SCOPE_PROFILER_PREFIX="$tmp/fapi" "$tmp/fapi" | grep -q "fortran api: ok"
check "$tmp/fapi_rank00000.spt" "$tmp/fapi_rank00000.sps" <<'PY'
import sys
from lib_reader import read_spt, read_sps
t = read_spt(sys.argv[1])
R = {r["name"]: r for r in t["regions"]}
assert {k: len(v["starts"]) for k, v in R.items()} == {"alpha": 3, "beta": 3}, R.keys()
assert R["beta"]["file"] == "lib_fortran_api.f90" and R["beta"]["line"] == 17
s = read_sps(sys.argv[2])
assert s["regions"] == [r["name"] for r in t["regions"]] and s["ticks"] == sum(s["weights"])
print("fortran api ok: %d samples" % s["ticks"])
PY
# sp_set_events from Fortran: the trace names the event (counted, or
# unavailable with its reason where perf_event_open is refused)
"${SCOPE_PROFILER_BIN:?}" inspect --json "$tmp/fapi_rank00000.spt" </dev/null >"$tmp/fapi.json"
python3 - "$tmp/fapi.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
ev = c["events"]
assert [e["name"] for e in ev] == ["page-faults"], ev
assert ev[0]["quality"] == "measured" or ev[0]["reason"], ev
print("fortran sp_set_events ok:", ev[0]["quality"])
PY
echo "all Fortran example checks passed"
