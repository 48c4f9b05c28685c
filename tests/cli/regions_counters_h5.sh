#!/usr/bin/env bash
# regions convert and merge of traces with counters per region say aloud that the .h5 profile does not hold them yet (never dropped silently); traces without counters get no such warning
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
mkdir a plain
python3 "$mk" counters a/c_rank00000.spt
python3 "$mk" small plain 1
if ! "$NUNATAK" regions convert a -o a.h5 </dev/null >out.txt 2>err.txt; then
	if grep -q "built without HDF5\|regions.no_hdf5\|HDF5 module" err.txt; then
		echo "skip: no HDF5 support here: $(cat err.txt)"
		exit 2
	fi
	cat err.txt
	fail "convert failed"
fi
cat err.txt
grep -q "warning: 1 rank carries counters per region, which the .h5 profile does not hold yet" err.txt
"$NUNATAK" regions merge a plain -o ap.h5 </dev/null >out.txt 2>err.txt || { cat err.txt; fail "merge failed"; }
grep -q "warning: 1 rank carries counters per region" err.txt
"$NUNATAK" regions convert plain -o plain.h5 </dev/null >out.txt 2>err.txt || { cat err.txt; fail "convert failed"; }
if grep -q "counters per region" err.txt; then fail "a warning without counters"; fi
echo ok
