#!/usr/bin/env bash
# HDF5 is a module loaded on first need: nunatak maps no libhdf5 until an .h5 is touched; a missing or broken module fails .h5 verbs clearly while .spt keeps working
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
unset NUNATAK_HDF5_MODULE
mkdir run
python3 "$mk" small run 2
if ! "$NUNATAK" regions convert run -o x.h5 2>err.txt; then
	if grep -q "built without HDF5" err.txt; then echo "skip: this nunatak was built without HDF5"; exit 2; fi
	fail "convert: $(cat err.txt)"
fi
"$NUNATAK" regions inspect run --json >spt.json
"$NUNATAK" regions inspect x.h5 --json >h5.json || fail "inspect x.h5 with the module beside nunatak"

# The executable does not link libhdf5 (its dependencies cost ~4 ms of every
# start), and neither --version nor an .spt inspect loads it; an .h5 does.
needed=$(readelf -d "$NUNATAK" 2>&1 | grep NEEDED) || fail "readelf -d $NUNATAK: $needed"
echo "$needed" | grep -q 'libc\.so' || fail "readelf found no DT_NEEDED: $needed"
if echo "$needed" | grep -qi hdf5; then fail "nunatak links libhdf5: $needed"; fi
# The loaded files' names, whole when the clone's path has spaces.
loaded() { LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -nE 's/.*\tfile=(.*) \[[0-9]+\];.*/\1/p' | sort -u; }
if loaded "$NUNATAK" --version | grep -qi hdf5; then fail "--version loads libhdf5"; fi
if loaded "$NUNATAK" regions inspect run | grep -qi hdf5; then fail "an .spt inspect loads libhdf5"; fi
loaded "$NUNATAK" regions inspect x.h5 | grep -q 'nunatak-hdf5\.so' || fail "the .h5 inspect did not load the module"

# Module made unavailable by the override: .h5 verbs fail with the no-HDF5
# error naming the path, the loader's reason and the remedy; .spt works.
export NUNATAK_HDF5_MODULE=$tmp/missing/nunatak-hdf5.so
rc=0; "$NUNATAK" regions inspect x.h5 2>err.txt >/dev/null || rc=$?
[ "$rc" = 1 ] || fail "inspect x.h5 without the module exited $rc: $(cat err.txt)"
grep -q "x.h5: cannot load the HDF5 module $tmp/missing/nunatak-hdf5.so: cannot open shared object file: No such file or directory: reinstall nunatak" err.txt ||
	fail "message without the module: $(cat err.txt)"
"$NUNATAK" regions inspect x.h5 --json >err.json 2>/dev/null && fail "--json inspect x.h5 succeeded without the module"
python3 - err.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"]["code"] == "regions.no_hdf5", d
PY
rc=0; "$NUNATAK" regions convert run -o y.h5 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "y.h5: cannot load the HDF5 module" err.txt || fail "convert without the module ($rc): $(cat err.txt)"
[ ! -e y.h5 ] || fail "convert without the module wrote y.h5"
"$NUNATAK" regions inspect run --json >spt2.json || fail ".spt inspect without the module"
cmp -s spt.json spt2.json || fail ".spt inspect changed without the module"
"$NUNATAK" doctor >doc.txt
grep -qE "^warning +hdf5 +cannot load the HDF5 module $tmp/missing" doc.txt || fail "doctor: $(grep hdf5 doc.txt)"
# A file that is not our module is refused as such, not called.
export NUNATAK_HDF5_MODULE=$NUNATAK_BUILD_DIR/lib/libscope_profiler.so
[ -e "$NUNATAK_HDF5_MODULE" ] || fail "no $NUNATAK_HDF5_MODULE (built with nunatak)"
"$NUNATAK" regions inspect x.h5 2>err.txt && fail "a foreign .so was taken for the module"
grep -q "is not the HDF5 module of this nunatak .*no nunatak_h5_module()" err.txt || fail "foreign .so: $(cat err.txt)"
unset NUNATAK_HDF5_MODULE

# Where the loader looks without the override: beside the executable, then
# ../lib/nunatak/ from it (the installed layout); nowhere else.
module=$(dirname "$NUNATAK")/nunatak-hdf5.so
[ -e "$module" ] || fail "no module beside $NUNATAK"
# Loaded lazily (libhdf5's chain), the module itself binds at load (-z now):
# a symbol the executable lacks fails the dlopen with its name, not a call.
readelf -d "$module" | grep -q 'FLAGS.*BIND_NOW' || fail "the module is not linked -z now"
mkdir -p alone inst/bin inst/lib/nunatak
cp "$NUNATAK" alone/
rc=0; alone/nunatak regions inspect x.h5 2>err.txt >/dev/null || rc=$?
[ "$rc" = 1 ] || fail "a lone copy read x.h5 ($rc)"
grep -q "nunatak-hdf5.so is in neither $tmp/alone/ nor $tmp/alone/../lib/nunatak/: reinstall nunatak" err.txt ||
	fail "lone copy message: $(cat err.txt)"
alone/nunatak regions inspect run >/dev/null || fail "a lone copy cannot read .spt"
: >alone/nunatak-hdf5.so # found but broken: reported, never skipped
alone/nunatak regions inspect x.h5 2>err.txt && fail "an empty module loaded"
grep -q "cannot load the HDF5 module $tmp/alone/nunatak-hdf5.so: " err.txt || fail "broken module: $(cat err.txt)"
cp "$NUNATAK" inst/bin/
cp "$module" inst/lib/nunatak/
inst/bin/nunatak regions inspect x.h5 --json >inst.json 2>err.txt || fail "installed layout: $(cat err.txt)"
cmp -s h5.json inst.json || fail "installed layout read x.h5 differently"
inst/bin/nunatak doctor | grep -qE "^ok +hdf5 +HDF5 [0-9.]+, loaded from $tmp/inst/bin/../lib/nunatak/nunatak-hdf5.so" ||
	fail "doctor in the installed layout: $(inst/bin/nunatak doctor | grep hdf5)"
echo ok
