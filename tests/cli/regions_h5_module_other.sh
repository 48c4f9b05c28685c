#!/usr/bin/env bash
# A module of another build (its table's size or version differ, or the executable's shared structs do) is refused with regions.no_hdf5 before any call
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
unset NUNATAK_HDF5_MODULE
command -v cc >/dev/null || { echo "skip: no C compiler to build a foreign module"; exit 2; }
mkdir run
python3 "$mk" small run 1
if ! "$NUNATAK" regions convert run -o x.h5 2>err.txt; then
	if grep -q "built without HDF5" err.txt; then echo "skip: this nunatak was built without HDF5"; exit 2; fi
	fail "convert: $(cat err.txt)"
fi
# The entry point exists and returns a table, but not one of this nunatak.
cat >other.c <<'EOF'
struct table { unsigned long sz; const char *version; };
static const struct table t = {sizeof(t), "0.0.0-other"};
const struct table *nunatak_h5_module(void);
const struct table *nunatak_h5_module(void) { return &t; }
EOF
cc -shared -fPIC -o other.so other.c
rc=0; NUNATAK_HDF5_MODULE=$tmp/other.so "$NUNATAK" regions inspect x.h5 --json >err.json 2>err.txt || rc=$?
[ "$rc" = 1 ] || fail "a module of another build: exit $rc"
grep -q "$tmp/other.so is not the HDF5 module of this nunatak .*built from other sources" err.json ||
	fail "module of another build: $(cat err.json err.txt)"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["error"]["code"] == "regions.no_hdf5"' err.json
"$NUNATAK" regions inspect x.h5 >/dev/null || fail "the real module no longer loads"
echo ok
