#!/usr/bin/env bash
# control and bidi characters: a region name holding ESC, BEL and a right-to-left override (U+202E), and an argv holding an escape sequence, reach the terminal of run, report and compare escaped (no control byte, no raw U+202E); on the report page the override is shown as a visible mark inside an isolated <bdi>, never raw (headless Chromium)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
B=${NUNATAK_BUILD_DIR:?}
cd "$WORK"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
export NUNATAK_NO_CALIBRATE=1
cat >bidi.c <<'C'
#include <stdio.h>
#include <scope_profiler.h>
int main(int argc, char **argv)
{
	volatile double x = 0;
	const struct sp_site *r = sp_region("sample\xe2\x80\xae" "emit \x1b]0;PWNED\x07" "kernel");
	sp_begin(r);
	for (long i = 0; i < 20000000; i++)
		x += i * 0.5;
	sp_end(r);
	printf("%d %g\n", argc, (double)x > 0 ? 1.0 : 0.0);
	(void)argv;
	return 0;
}
C
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then cc="clang -fsanitize=address,undefined"; else cc=${CC:-cc}; fi
$cc -O1 -g -I"$NUNATAK_SOURCE_DIR/include" bidi.c -o bidi -L"$B/lib" -lscope_profiler \
	-Wl,-rpath,"$B/lib" 2>cc.txt || fail "cannot build the program"
arg=$(printf 'x\033[2J\033]0;TITLE\007y')
"$NUNATAK" run -o "$WORK/a" -- ./bidi "$arg" >a.txt 2>&1 || fail "nunatak run (a)"
"$NUNATAK" run -o "$WORK/b" -- ./bidi "$arg" >b.txt 2>&1 || fail "nunatak run (b)"
"$NUNATAK" report "$WORK/a" >rep.txt 2>&1 || fail "nunatak report"
"$NUNATAK" compare "$WORK/a" "$WORK/b" >cmp.txt 2>&1 || fail "nunatak compare"
# the application's own output passes through untouched: only nunatak's lines are checked
grep -v '^2 1$' a.txt >term.txt || true
cat rep.txt cmp.txt >>term.txt
python3 - term.txt <<'PY' || fail "a control or bidi character reached the terminal"
import sys
t = open(sys.argv[1], "rb").read()
bad = sorted({b for b in t if (b < 0x20 and b not in b"\n\t") or b == 0x7f})
assert not bad, "control bytes %r" % bad
assert "\u202e".encode() not in t, "a raw U+202E"
PY
grep -q 'x\\x1b\[2J' term.txt || fail "run does not show the argv's escape as \\x1b"
grep -q 'sample\\u202eemit' rep.txt || fail "report does not show the region name's override as \\u202e"

dump_dom "file://$WORK/a/report.html" dom.html
python3 - dom.html <<'PY' || fail "the page shows the override raw or not isolated"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert "\u202e" not in dom, "a raw U+202E in the page"
m = re.search(r'<bdi class="bidi-shown">([^<]*)</bdi>', dom)
assert m, "no isolated name"
assert "sample\u2039U+202E\u203aemit" in m.group(1), m.group(1)
PY
echo ok
