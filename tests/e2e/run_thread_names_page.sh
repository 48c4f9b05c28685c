#!/bin/bash
# threads named while a Run records them, drawn by headless Chromium: the page's per-thread table ("Where the wall time went") has a name column beside the tid, each thread's name as text (a hostile name's markup shown, never parsed; a byte that is no UTF-8 written \xff)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
cc -O1 -pthread -o "$WORK/named" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/named_threads.c"
cd "$WORK"
"$NUNATAK" run -o "$WORK/run" -- ./named > out.txt 2> err.txt </dev/null || fail "nunatak run failed"
[ -s run/report.html ] || fail "no report.html"
dump_dom "file://$WORK/run/report.html" "$WORK/dom.html"
python3 - "$WORK/dom.html" <<'PY' || fail "the threads' table"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<table class="tb-threads">.*?</table>', dom, re.S)
assert m, "no per-thread table in the page"
t = m.group(0)
assert "<th>thread</th><th>name</th>" in t, t[:400]
# text nodes: markup escaped by the DOM, the quote as is
for cell in ('<code>&lt;b&gt;&amp;"x</code>', "<code>w\\xffz</code>", "<code>nk-main</code>"):
    assert cell in t, (cell, t)
assert "<b>" not in t, "a thread name was parsed as markup"
# each named row: its tid in the cell before the name
rows = re.findall(r"<tr[^>]*>(.*?)</tr>", t, re.S)
named = [r for r in rows if "<code>" in r]
assert len(named) >= 4, rows
for r in named:
    cells = re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)
    assert cells[1].isdigit() and cells[2].startswith("<code>"), cells[:3]
print("rows:", len(rows))
PY
