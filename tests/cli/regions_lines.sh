#!/usr/bin/env bash
# regions lines: .sps samples of PIE and non-PIE programs symbolized to file:line per region, ??:0 without debug info, --top, --json
set -eu
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skip: no C compiler to build the sampled program"; exit 2; }
command -v nm >/dev/null || { echo "skip: nm (binutils) is needed to find the function"; exit 2; }
command -v llvm-symbolizer >/dev/null || command -v addr2line >/dev/null ||
	ls /usr/lib/llvm-*/bin/llvm-symbolizer >/dev/null 2>&1 ||
	{ echo "skip: neither llvm-symbolizer nor addr2line is installed"; exit 2; }
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
cc -g -O0 -fPIE -pie hot.c -o hot_pie
cc -g -O0 -no-pie hot.c -o hot_exec
pie=$((0x$(nm hot_pie | awk '/ T work$/{print $1}')))
exe=$((0x$(nm hot_exec | awk '/ T work$/{print $1}')))
load=$((0x555555554000))
# rank 0: the PIE at a random base; rank 1: the non-PIE, once with load address
# 0 and once with its mapping start, as a sampler may record either.
python3 - "$NUNATAK_SOURCE_DIR/tests/cli" "$tmp" $pie $exe $load <<'PY'
import sys
sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
d, pie, exe, load = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
m.sps(d + "/s_rank00000.sps", 0, 1000, 40, ["compute", "io"],
      [(d + "/hot_pie", load), ("/nonexistent/libm.so", 0x7f0000000000)],
      [(0, 0, load + pie)] * 5 + [(0, 1, 0x7f0000001000)] * 2 + [(1, -1, 0x1234)] * 3)
m.sps(d + "/s_rank00001.sps", 1, 1000, 40, ["compute"],
      [(d + "/hot_exec", 0), (d + "/hot_exec", 0x400000)],
      [(0, 0, exe)] * 4 + [(0, 1, exe)] * 4, order=">")
PY
"$NUNATAK" regions lines . >out.txt 2>err.txt || fail "lines: $(cat err.txt)"
head -1 out.txt | grep -qx "2 sample files, 18 samples, 80 timer ticks, effective sampling rate 1000 Hz" || fail "header: $(head -1 out.txt)"
# work's first instruction is on line 2 ("{"): 5 + 4 + 4 samples from both binaries, same file:line.
grep -qE "^ +86\.7% +13  $tmp/hot\.c:2  work$" out.txt || fail "hot line: $(cat out.txt)"
grep -qE "^ +13\.3% +2  \?\?:0  \(no line information\)$" out.txt || fail "??:0 row: $(cat out.txt)"
grep -q "^region io: 3 samples, 3 ticks" out.txt || fail "io region"
"$NUNATAK" regions lines . --top 1 | grep -c '??:0' | grep -qx 1 || fail "--top 1"
"$SCOPE_PROFILER_BIN" lines s_rank00000.sps --json >out.json
python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "nunatak.regions.lines" and d["samples"] == 10
c = d["regions"][0]
assert c["region"] == "compute" and c["samples"] == 7
assert c["lines"][0]["line"] == 2 and c["lines"][0]["function"] == "work" and c["lines"][0]["samples"] == 5
assert abs(c["lines"][0]["share"] - 5 / 7) < 1e-12
PY
printf 'SCOPEPRF' >bad.sps
if "$NUNATAK" regions lines bad.sps 2>err.txt; then fail "a trace accepted as samples"; fi
grep -q 'bad.sps: byte 0: not a scope_profiler sample file: expected magic "SCOPESMP"' err.txt || fail "bad magic: $(cat err.txt)"
rm bad.sps
# --ranks: only rank 1's file (its 8 samples); a rank with no file is an error
"$NUNATAK" regions lines . --ranks 1 >r1.txt
head -1 r1.txt | grep -qx "1 sample file, 8 samples, 40 timer ticks, effective sampling rate 1000 Hz" ||
	fail "--ranks 1: $(head -1 r1.txt)"
if "$NUNATAK" regions lines . --ranks 7 2>err.txt; then fail "--ranks 7 accepted"; fi
grep -q "rank 7: no .sps sample file of this rank" err.txt || fail "--ranks 7: $(cat err.txt)"
# --source: the line's text under its row, and in --json
"$NUNATAK" regions lines . --source --ranks 1 >src.txt
grep -A1 -E "hot\.c:2  work$" src.txt | tail -1 | grep -qE "^ +\| \{$" || fail "--source: $(cat src.txt)"
"$NUNATAK" regions lines . --source --json --ranks 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["per_file"] == [{"rank": 0, "effective_hz": 1000, "ticks": 40, "samples": 10}], d["per_file"]
l = d["regions"][0]["lines"][0]
assert l["line"] == 2 and l["source"] == "{", l'
# without -g the symbol table still names the function
cc -O0 -fPIE -pie hot.c -o hot_nog
nog=$((0x$(nm hot_nog | awk '/ T work$/{print $1}')))
mkdir nog
python3 - "$NUNATAK_SOURCE_DIR/tests/cli" "$tmp" $nog $load <<'PY'
import sys
sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
d, nog, load = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
m.sps(d + "/nog/n_rank00000.sps", 0, 250, 3, ["compute"], [(d + "/hot_nog", load)],
      [(0, 0, load + nog + 4)] * 3)
PY
"$NUNATAK" regions lines nog >nog.txt
grep -qE "^ +100\.0% +3  \?\?:0  work \(no line information: build with -g\)$" nog.txt ||
	fail "no -g: $(cat nog.txt)"
echo ok
