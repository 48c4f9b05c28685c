#!/usr/bin/env bash
# libscope_profiler: C and multi-threaded examples run (the Fortran ones: lib_examples_fortran.sh); traces checked field by field by an independent Python reader
set -eu
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 2; }
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL || true
check() { PYTHONPATH="$S/tests/e2e" python3 - "$@"; }

echo "== heat (C, SP_ENABLE): 64x64, 200 iterations, 5 ms checkpoints"
SCOPE_PROFILER_PREFIX="$tmp/heat" "$B/examples/c/example_heat" 64 200 5 >"$tmp/heat.out"
grep -q "heat: n=64 iterations=200" "$tmp/heat.out"
check "$tmp/heat_rank00000.spt" <<'PY'
import sys
from lib_reader import read_spt
t = read_spt(sys.argv[1])
assert t["version"] == 2 and t["rank"] == 0, (t["version"], t["rank"])
R = {r["name"]: r for r in t["regions"]}
want = {"assemble": 1, "timestep": 200, "exchange": 200, "solve": 200, "sweep": 200,
        "residual": 20, "checkpoint": 2}
got = {k: len(v["starts"]) for k, v in R.items()}
assert got == want, got
for name, r in R.items():
    assert r["file"] and r["file"].endswith("heat.c") and r["line"] > 0, (name, r["file"], r["line"])
    assert all(e >= s for s, e in zip(r["starts"], r["ends"])), name
    assert r["starts"] == sorted(r["starts"]), name
def inside(child, parent):
    """every call of child lies inside some call of parent"""
    P = list(zip(R[parent]["starts"], R[parent]["ends"]))
    j = 0
    for s, e in zip(R[child]["starts"], R[child]["ends"]):
        while j < len(P) and P[j][1] < s:
            j += 1
        assert j < len(P) and P[j][0] <= s and e <= P[j][1], (child, parent, s, e)
inside("sweep", "solve"); inside("solve", "timestep"); inside("exchange", "timestep")
inside("residual", "timestep"); inside("checkpoint", "timestep")
# assemble happens before the first timestep; timesteps do not overlap
assert R["assemble"]["ends"][0] <= R["timestep"]["starts"][0]
ts = list(zip(R["timestep"]["starts"], R["timestep"]["ends"]))
assert all(a[1] <= b[0] for a, b in zip(ts, ts[1:]))
# checkpoints sleep 5 ms: duration within [5 ms, 5 ms + 200 ms scheduling slack]
for s, e in zip(R["checkpoint"]["starts"], R["checkpoint"]["ends"]):
    assert 5.0e6 <= e - s, e - s  # sleeps 5 ms; no upper bound on a loaded machine
print("heat trace ok:", got)
PY

echo "== heat without SP_ENABLE: macros compile to nothing, sp_region() calls remain"
SCOPE_PROFILER_PREFIX="$tmp/off" "$B/examples/c/example_heat_disabled" 32 50 0 >/dev/null
check "$tmp/off_rank00000.spt" <<'PY'
import sys
from lib_reader import read_spt
t = read_spt(sys.argv[1])
got = {r["name"]: len(r["starts"]) for r in t["regions"]}
assert got == {"solve": 50}, got
print("disabled build ok:", got)
PY

echo "== heat, static library"
SCOPE_PROFILER_PREFIX="$tmp/st" "$B/examples/c/example_heat_static" 32 30 0 >/dev/null
check "$tmp/st_rank00000.spt" <<'PY'
import sys
from lib_reader import read_spt
got = {r["name"]: len(r["starts"]) for r in read_spt(sys.argv[1])["regions"]}
assert got["timestep"] == 30 and got["checkpoint"] == 1, got
PY

echo "== SCOPE_PROFILER_DISABLE=1 writes nothing"
SCOPE_PROFILER_DISABLE=1 SCOPE_PROFILER_PREFIX="$tmp/dis" "$B/examples/c/example_heat" 32 10 0 >/dev/null
if ls "$tmp"/dis_* >/dev/null 2>&1; then echo "files written while disabled"; exit 1; fi

echo "== unwritable prefix: program unharmed, error reported, no file"
rc=0
SP_LOG_LEVEL=error SCOPE_PROFILER_PREFIX=/proc/nonexistent/x "$B/examples/c/example_heat" 32 10 0 \
  >"$tmp/unw.out" 2>"$tmp/unw.err" || rc=$?
[ "$rc" = 0 ] || { echo "heat exited $rc with an unwritable prefix"; exit 1; }
grep -q "scope_profiler: error: cannot write /proc/nonexistent/x_rank00000.spt" "$tmp/unw.err"
grep -q "could not write its trace" "$tmp/unw.err"

echo "== rank from the MPI launcher's environment"
OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 SCOPE_PROFILER_PREFIX="$tmp/mpi" \
  "$B/examples/c/example_heat" 32 10 0 >/dev/null
check "$tmp/mpi_rank00003.spt" <<'PY'
import sys
from lib_reader import read_spt
assert read_spt(sys.argv[1])["rank"] == 3
PY

echo "== threads (pthreads): version 3 with lanes, tids, names"
SCOPE_PROFILER_PREFIX="$tmp/thr" "$B/examples/c/example_threads" 3 5 2 >"$tmp/thr.out"
pid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$tmp/thr.out")
check "$tmp/thr_rank00000.spt" "$pid" <<'PY'
import sys
from lib_reader import read_spt
t = read_spt(sys.argv[1])
assert t["version"] == 3, t["version"]
th = t["threads"]
assert len(th) == 4, th
assert th[0]["tid"] == int(sys.argv[2]), (th[0], sys.argv[2])  # lane 0: the main thread
assert len({x["tid"] for x in th}) == 4
assert sorted(x["name"] for x in th[1:]) == ["worker-0", "worker-1", "worker-2"], th
R = {r["name"]: r for r in t["regions"]}
assert R["main"]["lanes"] == [0], R["main"]["lanes"]
for name, per in (("worker", 1), ("compute", 5), ("wait", 5)):
    lanes = R[name]["lanes"]
    assert sorted(lanes) == sorted([1, 2, 3] * per), (name, lanes)
    assert R[name]["starts"] == sorted(R[name]["starts"])
for s, e in zip(R["wait"]["starts"], R["wait"]["ends"]):
    assert 2.0e6 <= e - s < 202e6, e - s
# per lane, compute and wait lie inside that lane's worker call, inside main
W = {l: (s, e) for s, e, l in zip(R["worker"]["starts"], R["worker"]["ends"], R["worker"]["lanes"])}
for name in ("compute", "wait"):
    for s, e, l in zip(R[name]["starts"], R[name]["ends"], R[name]["lanes"]):
        assert W[l][0] <= s and e <= W[l][1], (name, l)
m0, m1 = R["main"]["starts"][0], R["main"]["ends"][0]
assert all(m0 <= s and e <= m1 for s, e in W.values())
print("threads trace ok:", {k: len(v["starts"]) for k, v in R.items()})
PY

echo "all lib example checks passed (Fortran: lib_examples_fortran.sh)"
