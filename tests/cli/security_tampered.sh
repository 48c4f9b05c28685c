#!/usr/bin/env bash
# a tampered Run: a manifest announcing 16777216 ranks or a Locus of rank 20000000 costs report no more memory than the data present (1 GB address-space cap, time bound), and a pivot.sqlite with a generated column building a 900 MB string, or text where a number belongs, is refused with the column named
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to tamper with the Run"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export NUNATAK_NO_CALIBRATE=1
fail() { echo "FAIL: $*"; exit 1; }
"$NUNATAK" run -o run -- true >run.txt 2>&1 || { cat run.txt; fail "the Run"; }
# report under a 1 GB address-space cap and a time bound (generous: 2 cores
# busy); a sanitizer build reserves terabytes of address space up front, so
# there only the time bound holds
cap=1048576
[ "${NUNATAK_SANITIZE:-0}" != 1 ] || cap=unlimited
bounded() { # dir -> exit status in $rc, output in out.txt
	rc=0
	(ulimit -v "$cap" && timeout 300 "$NUNATAK" report "$1") >out.txt 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "$1: report hangs"
}

cp -r run ws
python3 - ws/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["run"]["world_size"] = 16777216
json.dump(m, open(sys.argv[1], "w"))
PY
bounded ws
[ "$rc" = 0 ] || { cat out.txt; fail "world_size 16777216: report failed (exit $rc)"; }
grep -q "announces 16777216 ranks" out.txt || { cat out.txt; fail "the implausible world size is not said"; }

cp -r run rank
python3 - rank/pivot.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT COUNT(*) FROM loci").fetchone()[0]
db.execute("INSERT INTO loci (id, node, rank, thread, pid) VALUES (?, 'n', 20000000, 1, 1)", (n,))
db.commit()
PY
bounded rank
[ "$rc" = 0 ] || { cat out.txt; fail "loci.rank 20000000: report failed (exit $rc)"; }
grep -q "Locus of rank 20000000" out.txt || { cat out.txt; fail "the implausible rank is not said"; }

cp -r run gen
python3 - gen/pivot.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("ALTER TABLE hotspots ADD COLUMN boom TEXT GENERATED ALWAYS AS (printf('%.*c', 900000000, 'x')) VIRTUAL")
db.commit()
PY
bounded gen
[ "$rc" != 0 ] || fail "a generated column was accepted"
grep -q "column boom" out.txt || { cat out.txt; fail "the generated column is not named"; }

cp -r run text
python3 - text/pivot.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT COUNT(*) FROM loci").fetchone()[0]
db.execute("INSERT INTO loci (id, node, rank, thread, pid) VALUES (?, 'n', 0, 1, 1)", (n,))
m = db.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
db.execute("INSERT INTO measurements (id, hotspot, locus, pass_index, counter, value, unit, quality) "
           "VALUES (?, NULL, ?, 0, 'task-clock', 'abc', 'ns', 'measured')", (m, n))
db.commit()
PY
bounded text
[ "$rc" != 0 ] || { cat out.txt; fail "text where a number belongs was accepted"; }
grep -q "column value holds text" out.txt || { cat out.txt; fail "the mistyped value is not named"; }
echo ok
