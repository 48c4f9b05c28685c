#!/bin/bash
# The report is inert: a Run whose function name, region name and source line hold </script>, <img onerror>, quotes, control characters and bytes that are no UTF-8 (real perf, real symbolizer) renders them as text in report.html, report-compare.html and the regions timeline (headless Chromium: no alert ran, no element was made, the literal text shows), and no control character reaches the terminal; the pages carry a CSP that refuses every request, and a local listener sees none (a copy without the CSP does reach it)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
INERT="$NUNATAK_SOURCE_DIR/tests/fixtures/report/inert.py"
B=${NUNATAK_BUILD_DIR:?}
cd "$WORK"

python3 "$INERT" listen port.txt hits.log &
listener=$!
trap 'kill $listener 2>/dev/null; rm -rf "$WORK"' EXIT
# bounded, not timed: a loaded machine may take seconds to start python
for _ in $(seq 600); do [ -s port.txt ] && break; sleep 0.1; done
PORT=$(cat port.txt)
[ -n "$PORT" ] || fail "the local listener did not start"

python3 "$INERT" source "$PORT" hostile.c
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then cc="clang -fsanitize=address,undefined"; else cc=${CC:-cc}; fi
$cc -O1 -g -fno-omit-frame-pointer -I"$NUNATAK_SOURCE_DIR/include" hostile.c -o hostile \
	-L"$B/lib" -lscope_profiler -Wl,-rpath,"$B/lib" 2>cc.txt || fail "cannot build the hostile program"

"$NUNATAK" run -q -o "$WORK/a" -- ./hostile > a.txt 2> a.err.txt || fail "nunatak run (a)"
"$NUNATAK" run -q -o "$WORK/b" -- ./hostile > b.txt 2> b.err.txt || fail "nunatak run (b)"
"$NUNATAK" compare "$WORK/a" "$WORK/b" > cmp.txt 2> cmp.err.txt || fail "nunatak compare"
spt=$(find "$WORK/a" -name '*.spt' | head -1)
[ -n "$spt" ] || fail "the Run kept no region trace"
"$NUNATAK" regions plot "$spt" -o "$WORK/plot.html" 2> plot.err.txt || fail "nunatak regions plot"

# The terminal gets no control character from a name (an escape sequence
# would drive it): report's summary, compare's table, regions inspect.
"$NUNATAK" report "$WORK/a" > term.txt 2>&1 || fail "nunatak report"
cat cmp.txt >> term.txt
"$NUNATAK" regions inspect "$spt" >> term.txt 2>&1 || fail "nunatak regions inspect"
python3 - term.txt <<'PY' || fail "a name's control characters reached the terminal"
import sys
t = open(sys.argv[1], "rb").read()
bad = sorted({b for b in t if (b < 0x20 and b not in b"\n\t") or b == 0x7f})
assert not bad, "control bytes %r" % bad
for s in (b"alert(1)</script>", b"alert(4)</script>"):
    assert s in t, s
PY

for page in a/report.html b/report-compare.html plot.html; do
	[ -s "$page" ] || fail "no $page"
	# Raw markup: the CSP refusing every request, and no payload string that
	# closes a script element or opens one.
	grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';" "$page" ||
		fail "$page has no Content-Security-Policy of default-src 'none'"
	python3 - "$page" <<'PY' || fail "$page: a name escaped its script element"
import re, sys
html = open(sys.argv[1], encoding="utf-8", errors="replace").read()
opens = len(re.findall(r"(?i)<script\b", html))
closes = len(re.findall(r"(?i)</script", html))
assert opens == closes and opens <= 2, (opens, closes)
assert "alert(" not in re.sub(r"(?is)<script\b.*?</script>", "", html), "alert outside the scripts"
PY
done

# drive PAGE: the DOM of a driven copy, once its timers ran (virtual time).
drive() {
	chromium_run --virtual-time-budget=5000 --dump-dom "file://$WORK/$1" >"$1.dom"
	grep -q "SELFTEST OK" "$1.dom" || { sed -n '/id="selftest"/,/<\/pre>/p' "$1.dom" >&2; return 1; }
}

# Rendered: the unmodified pages first (they must make no request), then
# copies with an alert hook and a driver that checks the DOM.
dump_dom "file://$WORK/a/report.html#hotspot-0" dom-report.html
dump_dom "file://$WORK/b/report-compare.html" dom-compare.html
dump_dom "file://$WORK/plot.html" dom-plot.html
for kind in report compare plot; do
	case $kind in report) page=a/report.html;; compare) page=b/report-compare.html;; plot) page=plot.html;; esac
	python3 "$INERT" inject "$page" "$kind-driven.html" "$kind" "$PORT"
	drive "$kind-driven.html" || fail "$kind page not inert"
	echo "$kind page: inert"
done
[ ! -s hits.log ] || { cat hits.log >&2; fail "a page made a request"; }

# The CSP is what refuses: every kind of request is blocked with it, and
# the listener sees requests from the same probe once the CSP is removed.
python3 "$INERT" inject a/report.html probe.html probe "$PORT"
drive probe.html || fail "the CSP let a request through"
[ ! -s hits.log ] || { cat hits.log >&2; fail "a request reached the listener despite the CSP"; }
python3 "$INERT" inject a/report.html probe-nocsp.html probe-nocsp "$PORT"
drive probe-nocsp.html || fail "the probe without CSP did not run"
for _ in $(seq 300); do grep -q probe-nocsp hits.log 2>/dev/null && break; sleep 0.2; done
grep -q "/probe-nocsp/" hits.log || fail "the listener saw nothing even without the CSP: the check proves nothing"
echo "requests: none with the CSP; $(grep -c probe-nocsp hits.log) without it"
echo ok
