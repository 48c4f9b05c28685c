#!/usr/bin/env bash
# regions merge: two result sets of the same ranks (say Python and Fortran) combine into one HDF5 profile; a region name in both on one rank is refused
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mk="$NUNATAK_SOURCE_DIR/tests/cli"
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "skip: python3 is needed to write test traces"; exit 2; }
probe=0; "$NUNATAK" regions merge a b -o x.h5 2>probe.txt || probe=$?
if grep -q "built without HDF5" probe.txt; then echo "skip: nunatak built without HDF5"; exit 2; fi
mkdir py ft clash
python3 - "$mk" <<'PY'
import sys; sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
# the Python side: ranks 0 and 1, one thread each
m.spt("py/py_rank00000.spt", 0, [("py.step", None, -1, [(0, 100), (200, 300)])])
m.spt("py/py_rank00001.spt", 1, [("py.step", None, -1, [(0, 150)])])
# the Fortran side: ranks 0 and 2, rank 0 with two threads
m.spt("ft/ft_rank00000.spt", 0, [("f_solve", "s.f90", 3, [(10, 90, 0), (20, 80, 1)])],
      version=3, threads=[(77, "main"), (78, "omp")])
m.spt("ft/ft_rank00002.spt", 2, [("f_solve", "s.f90", 3, [(5, 6)])])
# a run that names a region like the Python one on rank 1
m.spt("clash/c_rank00001.spt", 1, [("py.step", None, -1, [(1, 2)])])
PY
"$NUNATAK" regions merge py ft -o merged.h5
"$NUNATAK" regions inspect merged.h5 --json >m.json
python3 - m.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["rank"] for r in d["ranks"]] == [0, 1, 2], d["ranks"]
calls = {r["name"]: r["calls"] for r in d["regions"]}
assert calls == {"py.step": 3, "f_solve": 3}, calls
PY
"$NUNATAK" regions tree merged.h5 --rank 0 --json >t.json
python3 - t.json <<'PY'
import json, sys
lanes = json.load(open(sys.argv[1]))["ranks"][0]["lanes"]
# lane 0: the Python run's; lanes 1-2: the Fortran run's threads, after it
got = [(l["lane"], l["thread_name"], [n["name"] for n in l["nodes"]]) for l in lanes]
assert got == [(0, None, ["py.step"]), (1, "main", ["f_solve"]), (2, "omp", ["f_solve"])] or \
       got == [(0, "", ["py.step"]), (1, "main", ["f_solve"]), (2, "omp", ["f_solve"])], got
PY
status=0; "$NUNATAK" regions merge py clash -o bad.h5 2>err.txt || status=$?
[ "$status" = 1 ] || fail "collision exit $status"
grep -q "rank 1: region 'py.step' is in both py and clash: merging would mix their calls" err.txt ||
	fail "collision message: $(cat err.txt)"
[ ! -e bad.h5 ] || fail "a refused merge left a file"
status=0; "$NUNATAK" regions merge py -o one.h5 2>err.txt || status=$?
[ "$status" = 125 ] || fail "one run: exit $status"
echo ok
