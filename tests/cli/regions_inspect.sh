#!/usr/bin/env bash
# regions inspect: summary table and JSON over ranks, options, alias, and exact errors on bad traces
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 is needed to write test traces"; exit 2; }

mkdir run
python3 "$mk" small run 2
"$NUNATAK" regions inspect run >out.txt 2>err.txt || fail "inspect exited $?: $(cat err.txt)"
head -1 out.txt | grep -qx "run: 2 ranks, total time 200.000 us, 18 calls" || fail "header: $(head -1 out.txt)"
grep -qE "^Region +Calls +% session +% parent +Total +Avg +Min +Max +Std +Imbalance$" out.txt ||
	fail "columns: $(sed -n 2p out.txt)"
# dot: 8 calls, 114 us in total, 38% of the sessions (114/300), 47.5% of its solve parents.
grep -qE "^dot +8 +38\.0 +47\.5 +114\.000 us +14\.250 us +9\.000 us +20\.000 us +4\.815 us +1\.33x \(rank 1\)$" out.txt ||
	fail "dot row: $(grep ^dot out.txt)"
[ ! -s err.txt ] || fail "stderr not empty: $(cat err.txt)"

# The same binary under the library's name, and a file list instead of a directory.
"$SCOPE_PROFILER_BIN" inspect run/run_rank00001.spt run/run_rank00000.spt run >alias.txt
cmp -s out.txt alias.txt || fail "scope-profiler inspect differs from nunatak regions inspect"

# JSON: exact integer ns, inclusive vs exclusive.
"$NUNATAK" regions inspect run --json >out.json
python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "nunatak.regions.summary" and d["nr_ranks"] == 2, d
r = {x["name"]: x for x in d["regions"]}
assert [x["name"] for x in d["regions"]] == ["main", "init", "solve", "dot", "axpy"]
assert r["solve"]["calls"] == 4 and r["solve"]["inclusive_ns"] == 240000, r["solve"]
assert r["solve"]["exclusive_ns"] == 240000 - 114000 - 57000, r["solve"]
assert r["main"]["exclusive_ns"] == 300000 - 27000 - 240000
assert r["dot"]["imbalance"] == {"ratio": r["dot"]["imbalance"]["ratio"], "busiest_rank": 1}
assert abs(r["dot"]["imbalance"]["ratio"] - 4 / 3) < 1e-9
assert r["dot"]["per_rank_coverage_ns"] == {"0": 38000, "1": 76000}
assert r["main"]["source"] == {"file": "main.c", "line": 10}
PY

# One rank: an imbalance over one rank says nothing, so it is absent, not 1.00x.
"$NUNATAK" regions inspect run/run_rank00000.spt --json >one.json
python3 -c "import json; d=json.load(open('one.json')); assert d['nr_ranks'] == 1 and all(x['imbalance'] is None for x in d['regions']), d" ||
	fail "single-rank imbalance should be null"
"$NUNATAK" regions inspect run/run_rank00000.spt | grep -q "1.00x" && fail "single-rank table shows 1.00x"

# Options: sort, filters, ranks, columns, exclusive percentages.
"$NUNATAK" regions inspect run --sort total --columns region,total | sed -n 3p | grep -q "^main" || fail "--sort total"
"$NUNATAK" regions inspect run --sort name --columns region | tail -n +3 | tr -d ' ' | paste -sd, | grep -qx "axpy,dot,init,main,solve" || fail "--sort name"
"$NUNATAK" regions inspect run --include '^(dot|axpy)$' --exclude axpy --columns region,calls | tail -n +3 | tr -s ' ' | grep -qx "dot 8" || fail "--include/--exclude"
"$NUNATAK" regions inspect run --ranks 1 --columns region,calls,total | grep -qE "^dot +4 +76\.000 us$" || fail "--ranks 1"
"$NUNATAK" regions inspect run --percentage exclusive --columns region,percent | grep -qE "^main +11\.0$" || fail "--percentage exclusive"
"$NUNATAK" regions inspect --help | grep -q -- "--percentage" || fail "--help"

# Errors: exit status, stable code, file and byte offset.
expect_error() { # code message-regex command...
	local code=$1 re=$2; shift 2
	if "$@" >eo.txt 2>ee.txt; then fail "expected failure: $*"; fi
	grep -qE "$re" ee.txt || fail "message for $*: $(cat ee.txt)"
	if [ "$code" != - ]; then
		"$@" --json >ej.json 2>/dev/null || true
		python3 -c "import json,sys; e=json.load(open('ej.json'))['error']; assert e['code']=='$code', e" ||
			fail "JSON error code for $*"
	fi
}
expect_error trace.open "error: missing: no such file or directory: give the traces \(\*\.spt, \*_rank<N>\.h5\) or the directory holding them" \
	"$NUNATAK" regions inspect missing
mkdir empty
expect_error trace.none "error: empty: no trace here: expected \*\.spt or \*_rank<N>\.h5 files" "$NUNATAK" regions inspect empty
head -c 60 run/run_rank00000.spt >cut_rank00000.spt
expect_error trace.truncated "cut_rank00000\.spt: byte 24: truncated: expected 5 regions \(at least 20 bytes each\), found 36 bytes" \
	"$NUNATAK" regions inspect cut_rank00000.spt
head -c 230 run/run_rank00000.spt >cut2_rank00000.spt
expect_error trace.truncated "cut2_rank00000\.spt: byte 210: truncated: region 'dot' claims 4 calls \(16 bytes each\), only 20 bytes remain" \
	"$NUNATAK" regions inspect cut2_rank00000.spt
printf 'NOTATRACE-----------' >junk.spt
expect_error trace.bad_magic 'junk\.spt: byte 0: not a scope_profiler trace: expected magic "SCOPEPRF"' "$NUNATAK" regions inspect junk.spt
python3 - <<'PY'
b = bytearray(open("run/run_rank00000.spt", "rb").read()); b[8:12] = (9).to_bytes(4, "little")
open("new_rank00000.spt", "wb").write(b)
PY
expect_error trace.newer_version "new_rank00000\.spt: byte 8: trace format version 9 is newer than this reader" "$NUNATAK" regions inspect new_rank00000.spt
cp run/run_rank00001.spt other_rank00001.spt
expect_error trace.duplicate_rank "run/run_rank00001\.spt and other_rank00001\.spt both claim rank 1|other_rank00001\.spt and run/run_rank00001\.spt both claim rank 1" \
	"$NUNATAK" regions inspect run other_rank00001.spt
python3 "$mk" overlap ov_rank00000.spt
expect_error regions.nesting "rank 0 lane 0: regions do not nest: 'b' \[50, 150\] ns starts inside 'a' \[0, 100\] ns" \
	"$NUNATAK" regions inspect ov_rank00000.spt
expect_error usage "unknown sort key 'bogus'" "$NUNATAK" regions inspect run --sort bogus
status=0; "$NUNATAK" regions inspect run --sort bogus >/dev/null 2>&1 || status=$?
[ "$status" = 125 ] || fail "usage error exit status $status, expected 125"
status=0; "$NUNATAK" regions inspect junk.spt >/dev/null 2>&1 || status=$?
[ "$status" = 1 ] || fail "bad trace exit status $status, expected 1"
# Threads: each thread's session is its own first entry to last exit, so a
# region busy on both threads for the whole run is 100 %, never 200 %.
mkdir thr
python3 - "$mk" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("mk", sys.argv[1]); mk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mk)
mk.spt("thr/thr_rank00000.spt", 0, [
    ("work", None, -1, [(1000, 101000, 0), (1000, 101000, 1)]),
    ("io", None, -1, [(101000, 121000, 0)]),
], version=3, threads=[(10, "main"), (11, "omp-1")])
PY
"$NUNATAK" regions inspect thr --json >thr.json
python3 - thr.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["name"]: x for x in d["regions"]}
# sessions: lane 0 120 us + lane 1 100 us; work covers 200 us of them
assert d["ranks"][0]["session_ns"] == 220000, d["ranks"]
assert d["total_time_ns"] == 120000, d["total_time_ns"]
assert abs(r["work"]["percent"] - 100 * 200000 / 220000) < 1e-9, r["work"]["percent"]
assert sum(x["percent"] for x in d["regions"]) <= 100.0 + 1e-9, [x["percent"] for x in d["regions"]]
PY
echo ok
