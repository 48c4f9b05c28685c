#!/usr/bin/env bash
# A corrupt .h5 that crashes libhdf5, or makes it loop, is a clear error naming the file from inspect/tree/export/convert: nunatak reads it in a bounded child, never crashes or hangs, and keeps what it wrote before (issue 28 item 5)
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
unset NUNATAK_HDF5_MODULE NUNATAK_H5_TIME_LIMIT
fx=$NUNATAK_SOURCE_DIR/tests/fixtures/h5
mkdir run
python3 "$mk" small run 2
if ! "$NUNATAK" regions convert run -o sound.h5 2>err.txt; then
	if grep -q "built without HDF5" err.txt; then echo "skip: this nunatak was built without HDF5"; exit 2; fi
	fail "convert: $(cat err.txt)"
fi
# What these files do depends on libhdf5 (tests/fixtures/h5/README.md).
version=$("$NUNATAK" doctor 2>/dev/null | sed -nE 's/.*HDF5 ([0-9][0-9.]*), loaded from.*/\1/p' | head -1)
[ -n "$version" ] || fail "doctor names no HDF5 version: $("$NUNATAK" doctor 2>&1 | grep -i hdf5)"
case "$version" in 1.10.*) known=1 ;; *) known=0; echo "note: libhdf5 $version, not 1.10: the crash and the loop are not expected of it" ;; esac

d="$tmp/a dir with spaces"
mkdir "$d"
cp "$fx/segv-byte8934_rank0.h5" "$d/segv_rank0.h5"
cp "$fx/loop-byte9232_rank0.h5" "$d/loop_rank0.h5"
cp "$fx/sound_rank0.h5" "$d/sound_rank0.h5"
"$NUNATAK" regions inspect "$d/sound_rank0.h5" >sound.txt 2>err.txt || fail "the sound fixture: $(cat err.txt)"
grep -q "2 ranks" sound.txt || fail "sound fixture: $(head -3 sound.txt)"

# $1: the file, $2: what the error must say under 1.10; the rest: the verb.
check() {
	local f=$1 want=$2
	shift 2
	local rc=0
	"$NUNATAK" regions "$@" >out.txt 2>err.txt </dev/null || rc=$?
	[ "$rc" -lt 128 ] || fail "regions $*: nunatak died with $rc: $(cat err.txt)"
	if [ "$known" = 1 ]; then
		[ "$rc" = 1 ] || fail "regions $* exited $rc, expected 1: $(cat err.txt)"
		grep -qF "$f: $want" err.txt || fail "regions $*: expected '$f: $want': $(cat err.txt)"
	elif [ "$rc" = 1 ]; then
		grep -qF "$f" err.txt || fail "regions $*: the error does not name $f: $(cat err.txt)"
	fi
}
segv=$d/segv_rank0.h5
crash="libhdf5 crashed reading it (Segmentation fault"
# Under AddressSanitizer its memcpy check stops libhdf5 before the fault,
# and the child ends by the sanitizer's exit code: still an error naming
# the file, which says so.
if grep -qa "AddressSanitizer" "$NUNATAK"; then
	crash="the process reading it ended (exit 1) without an answer"
fi
check "$segv" "$crash" inspect "$segv"
check "$segv" "$crash" tree "$segv"
check "$segv" "$crash" export "$segv" -f csv -o "$tmp/x.csv"
[ ! -e "$tmp/x.csv" ] || [ "$known" = 0 ] || fail "export wrote x.csv from a file it could not read"
# convert over an existing file: that file stays as it was
cp sound.h5 keep.h5
check "$segv" "$crash" convert "$segv" -o keep.h5
cmp -s sound.h5 keep.h5 || fail "convert changed keep.h5 although it failed"
# --json: the error as JSON, with its code
rc=0; "$NUNATAK" regions inspect "$segv" --json >err.json 2>/dev/null || rc=$?
if [ "$known" = 1 ]; then
	[ "$rc" = 1 ] || fail "--json exited $rc"
	python3 - err.json "$segv" "$crash" <<'PY' || fail "--json: $(cat err.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"]["code"] == "trace.corrupt", d
assert d["error"]["message"].startswith(sys.argv[2] + ": " + sys.argv[3]), d
PY
fi
# the sound file in the same directory still reads after the crash
"$NUNATAK" regions inspect "$d/sound_rank0.h5" >sound2.txt 2>err.txt || fail "sound after the crash: $(cat err.txt)"
cmp -s sound.txt sound2.txt || fail "the sound file reads differently"

# The loop: stopped at the CPU bound (1 s here; the wall bound, 33 s, if a
# loaded machine gives it less CPU than that), an error naming the file.
loop=$d/loop_rank0.h5
export NUNATAK_H5_TIME_LIMIT=1
check "$loop" "libhdf5 reading it did not end within" inspect "$loop"
if [ "$known" = 1 ]; then
	grep -qE "within (1 s of CPU|33 s of wall time)" err.txt || fail "loop: $(cat err.txt)"
fi
unset NUNATAK_H5_TIME_LIMIT
echo "ok: libhdf5 $version: a crash and a loop of libhdf5 are errors naming the file"
