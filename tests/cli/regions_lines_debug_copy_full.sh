#!/usr/bin/env bash
# regions lines on a nearly full disk: the decompressed debug copy that would not fit in the cache's free space is not attempted (no llvm-objcopy, -v says how much is free and needed, the next call says it again rather than never trying), the rows are the original's; on a 512 kB tmpfs in a mount namespace of its own (root)
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the test imports regions_mktrace.py from the source tree
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skip: no C compiler to build the sampled program"; exit 2; }
command -v nm >/dev/null && command -v objcopy >/dev/null ||
	{ echo "skip: binutils (nm, objcopy) are needed to split the debug information"; exit 2; }
command -v unshare >/dev/null || { echo "skip: unshare (util-linux) is needed for a mount namespace"; exit 2; }
# A small file system where the copies go, seen by this test only.
mkdir -p cache/nunatak/debug
unshare -m sh -c "mount -t tmpfs -o size=512k,mode=0700 tmpfs '$tmp/cache/nunatak/debug'" 2>/dev/null ||
	{ echo "skip: cannot mount a tmpfs in a mount namespace here (needs root or user namespaces)"; exit 2; }
cat >hot.c <<'C'
double work(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	return s;
}
int main(void) { return work(10) > 1e9; }
C
cc -g -O0 -gz=zlib -Wl,--build-id -fPIE -pie hot.c -o full 2>/dev/null ||
	{ echo "skip: the compiler cannot compress debug sections here (-gz=zlib)"; exit 2; }
objcopy --only-keep-debug full hot.debug
objcopy --strip-debug --add-gnu-debuglink=hot.debug full hot_pie
pie=$((0x$(nm full | awk '/ T work$/{print $1}')))
load=$((0x555555554000))
python3 - "$NUNATAK_SOURCE_DIR/tests/cli" "$tmp" $pie $load <<'PY'
import sys
sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
d, pie, load = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
m.sps(d + "/s_rank00000.sps", 0, 1000, 40, ["compute"], [(d + "/hot_pie", load)],
      [(0, 0, load + pie)] * 5)
PY
export XDG_CACHE_HOME="$tmp/cache"
unset LLVM_SYMBOLIZER_OPTS DEBUGINFOD_URLS
# Each call in the namespace where the tmpfs is mounted (the copy needs the
# file's size and 1 MB: more than 512 kB).
cat >calls.sh <<SH
set -eu
mount -t tmpfs -o size=512k,mode=0700 tmpfs '$tmp/cache/nunatak/debug'
for i in 1 2 3; do
	"\$NUNATAK" regions lines '$tmp' -v </dev/null >'$tmp'/out\$i.txt 2>'$tmp'/err\$i.txt
done
ls -A '$tmp/cache/nunatak/debug' >'$tmp'/left.txt
SH
unshare -m sh calls.sh || fail "regions lines: $(cat err*.txt)"
for i in 1 2 3; do
	grep -qE "^ +100\.0% +5  $tmp/hot\.c:2  work$" out$i.txt || fail "call $i: $(cat out$i.txt)"
done
grep -q "1 met for the first time (marker left)" err1.txt || fail "first call: $(cat err1.txt)"
for i in 2 3; do
	grep -qE "no copy of $tmp/hot\.debug: 0\.[0-9] MB free in $tmp/cache/nunatak/debug, 1\.[0-9] MB needed \(tried again on a later Run\)" err$i.txt ||
		fail "call $i: $(cat err$i.txt)"
	grep -q "0 copies made, 0 failed" err$i.txt || fail "call $i: $(cat err$i.txt)"
done
# only the marker: no copy, no temporary file
[ "$(grep -c . left.txt)" = 1 ] && grep -q '\.seen$' left.txt || fail "left in the copies' directory: $(cat left.txt)"
# nothing mounted outside the namespace
[ -z "$(ls -A cache/nunatak/debug)" ] || fail "the tmpfs leaked: $(ls -A cache/nunatak/debug)"
echo ok
