#!/bin/bash
# threads named while a Run records them, under real perf: each thread's name (its comm as the kernel last reported it: a prctl rename, a hostile name with markup and a quote, a byte that is no UTF-8 written \xff, a thread that keeps its maker's name) in report --json's time_budget.loci beside its tid, the pivot's loci.name, and the page's payload escaped (no raw markup in report.html)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
cc -O1 -pthread -o "$WORK/named" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/named_threads.c"
cd "$WORK"
"$NUNATAK" run -o "$WORK/run" -- ./named > out.txt 2> err.txt </dev/null ||
	fail "nunatak run failed"
"$NUNATAK" report --json "$WORK/run" > rep.json 2> rep_err.txt || fail "nunatak report --json"
python3 - <<'PY' || fail "thread names in the payload"
import json
rep = json.load(open("rep.json"))
tb = rep["time_budget"]
assert tb is not None and tb["loci"], ("no per-thread budget", tb)
rows = tb["loci"]
names = sorted(r.get("name") or "(none)" for r in rows)
print("names:", names)
# the application's four threads, each named; the main thread is tid == pid
want = sorted(["nk-main", "nk-main", '<b>&"x', "w\\xffz"])
app = sorted(r["name"] for r in rows if r.get("name") in ("nk-main", '<b>&"x', "w\\xffz"))
assert app == want, (app, want, rows)
main = [r for r in rows if r["name"] == "nk-main" and r["thread"] == r["pid"]]
assert len(main) == 1, rows
assert all("name" in r for r in rows), "a row without its name key (null when none recorded)"
PY
# the pivot keeps them (loci.name), read with Python's own sqlite3
python3 - <<'PY' || fail "thread names in pivot.sqlite"
import sqlite3
db = sqlite3.connect("file:run/pivot.sqlite?mode=ro", uri=True)
names = sorted(n for (n,) in db.execute("SELECT name FROM loci WHERE name IS NOT NULL"))
for n in ("nk-main", '<b>&"x', "w\\xffz"):
    assert n in names, (n, names)
PY
# the page carries the payload with markup escaped: the hostile name never
# appears as markup in the file
grep -qF '\u003cb\u003e\u0026\"x' run/report.html ||
	fail "the hostile name is not in the page's payload, escaped"
if grep -qF '<b>&"x' run/report.html; then fail "the hostile name is raw markup in report.html"; fi
