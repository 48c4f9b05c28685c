#!/usr/bin/env bash
# regions lines uses nunatak's decompressed debug copies on the terms of a Run: a program whose debug information is in a zlib-compressed separate file (-gz=zlib, .gnu_debuglink) gets a marker on the first call, a copy on the second, is read from the copy on the third (-v says each), with the same file:line rows every time
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the test imports regions_mktrace.py from the source tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skip: no C compiler to build the sampled program"; exit 2; }
command -v nm >/dev/null && command -v objcopy >/dev/null && command -v readelf >/dev/null ||
	{ echo "skip: binutils (nm, objcopy, readelf) are needed to split the debug information"; exit 2; }
# The symbolizer regions lines chooses, and llvm-objcopy beside it (the copies are made with it).
sym=$("$NUNATAK" doctor --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if isinstance(v, str) and "llvm-symbolizer" in v and v.endswith(")") and "(" in v:
                print(v[v.rfind("(") + 1:-1]); sys.exit(0)
            walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(d)' || true)
[ -n "$sym" ] || { echo "skip: no llvm-symbolizer chosen here (the copies are for llvm-symbolizer only)"; exit 2; }
[ -x "$(dirname "$sym")/llvm-objcopy" ] ||
	{ echo "skip: no llvm-objcopy beside $sym: the copies are made with it"; exit 2; }
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
readelf -SW hot.debug | grep -E ' \.debug_info ' | grep -qE ' [A-Z]*C[A-Z]* ' ||
	{ echo "skip: the toolchain left the debug sections uncompressed (-gz=zlib)"; exit 2; }
pie=$((0x$(nm full | awk '/ T work$/{print $1}')))
load=$((0x555555554000))
python3 - "$NUNATAK_SOURCE_DIR/tests/cli" "$tmp" $pie $load <<'PY'
import sys
sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
d, pie, load = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
m.sps(d + "/s_rank00000.sps", 0, 1000, 40, ["compute"], [(d + "/hot_pie", load)],
      [(0, 0, load + pie)] * 5)
PY
export XDG_CACHE_HOME="$tmp/cache" # this test's own copies
# LLVM_SYMBOLIZER_OPTS turns the copies off; with debuginfod in play a file found by its
# .gnu_debuglink (this one) is not copied (LLVM would ask the server first)
unset LLVM_SYMBOLIZER_OPTS DEBUGINFOD_URLS
for i in 1 2 3; do
	"$NUNATAK" regions lines . -v </dev/null >out$i.txt 2>err$i.txt || fail "lines $i: $(cat err$i.txt)"
	grep -qE "^ +100\.0% +5  $tmp/hot\.c:2  work$" out$i.txt || fail "call $i: $(cat out$i.txt)"
done
cmp -s out1.txt out2.txt && cmp -s out1.txt out3.txt || fail "the rows differ between calls: $(cat out1.txt out2.txt out3.txt)"
grep -q "debug copies: 1 separate debug file met, 0 read from a decompressed copy, 1 met for the first time (marker left), 0 copies made, 0 failed" err1.txt ||
	fail "first call: $(cat err1.txt)"
grep -q "debug copies: 1 separate debug file met, 0 read from a decompressed copy, 0 met for the first time (marker left), 1 copy made, 0 failed" err2.txt ||
	fail "second call: $(cat err2.txt)"
grep -q "debug copies: 1 separate debug file met, 1 read from a decompressed copy, 0 met for the first time (marker left), 0 copies made, 0 failed" err3.txt ||
	fail "third call: $(cat err3.txt)"
copy=$(ls "$tmp"/cache/nunatak/debug/*/.build-id/*/*.debug)
readelf -SW "$copy" | grep -E ' \.debug_info ' | grep -qvE ' [A-Z]*C[A-Z]* ' || fail "the copy is still compressed: $copy"
echo ok
