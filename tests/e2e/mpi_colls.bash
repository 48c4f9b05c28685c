# SPDX-License-Identifier: BSD-3-Clause
# Shared body of mpi_colls.sh (Open MPI), mpi_colls_mpich.sh and
# mpi_colls_fortran*.sh: collectives in who talks to whom (tests/e2e/mpi_colls.c,
# or its twin mpi_colls.f90 in `src`, on `ranks` ranks). Expects: launcher,
# mpicc (the compiler), launcher flags in the array `flags`, `ranks`, and
# `stack` for messages.
command -v "$launcher" >/dev/null || { echo "skip: $launcher is not installed"; exit 2; }
command -v "$mpicc" >/dev/null || { echo "skip: $mpicc is not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" NUNATAK_NO_CALIBRATE=1
cd "$tmp"
d="$tmp/$mpicc"
mkdir -p "$d"
"$mpicc" -g -O1 -o "$d/colls" "${src:-$NUNATAK_SOURCE_DIR/tests/e2e/mpi_colls.c}"
"$NUNATAK" run -o "$d/run" -- "$launcher" "${flags[@]}" -n "$ranks" "$d/colls" </dev/null >"$d/out" 2>"$d/err" || {
	echo "nunatak run under $launcher failed ($?)"; cat "$d/err"; exit 1; }
grep -q "^colls ok$" "$d/out" || { echo "application output lost or wrong"; cat "$d/out"; exit 1; }
grep -q "collectives (estimated: the pairs follow each collective's meaning, not the MPI library's algorithm): " "$d/err" || {
	echo "no collectives summary line under $launcher"; cat "$d/err"; exit 1; }
"$NUNATAK" report --json "$d/run" >"$d/payload.json"
python3 - "$d/payload.json" "$ranks" <<'PY'
import json, sys
from collections import defaultdict
p = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
m = p["ranks"]["comm_matrix"]
# no point-to-point call in the program: that matrix is empty, measured apart
assert m["messages"] == 0 and m["bytes"] == 0 and m["cells"] == [], m
c = m["collectives"]
assert c["quality"] == "estimated" and "algorithm" in c["reason"], c
assert (c["ranks"], c["ranks_reporting"], c["bin"], c["bins"]) == (n, n, 1, n), c
assert c["unplaced"] == {"calls": 0, "bytes": 0}, c["unplaced"]
assert c["bytes"]["quality"] == "estimated" and c["bytes"]["reason"] == c["reason"], c["bytes"]
# what tests/e2e/mpi_colls.c does, by the patterns of analysis/comm_collectives.h
cells = defaultdict(lambda: [0, 0])
pattern = defaultdict(int)
def add(f, t, b, calls, k):
    cells[(f, t)][0] += b
    cells[(f, t)][1] += calls
    pattern[k] += b
def one_to_all(mem, root, b, calls):
    for x in mem:
        if x != root: add(root, x, b, calls, "one-to-all")
def all_to_one(mem, root, b, calls):
    for x in mem:
        if x != root: add(x, root, b, calls, "all-to-one")
def all_pairs(mem, b, calls, k="all-pairs"):
    for x in mem:
        for y in mem:
            if x != y: add(x, y, b, calls, k)
def prefix(mem, b, calls):
    for i, x in enumerate(mem):
        for y in mem[i + 1:]: add(x, y, b, calls, "prefix")
world = list(range(n))
one_to_all(world, 1, 2 * 4000, 2)                # MPI_Bcast, 1000 ints, twice
all_pairs(world, 3 * 2048 + 4, 4)                 # MPI_Allreduce x3 + the final check's
all_pairs(world, 400, 1)                          # MPI_Alltoall: 100 ints to each member
prefix(world, 8, 1)                               # MPI_Scan
all_pairs(world, 0, 1, "sync")                    # MPI_Barrier
halves = [sorted((r for r in world if r % 2 == h), reverse=True) for h in (0, 1)]
for mem in halves:
    one_to_all(mem, mem[0], 500, 1)               # MPI_Bcast on the split
    all_to_one(mem, mem[-1], 512, 1)              # MPI_Reduce on the split
want = {k: tuple(v) for k, v in cells.items()}
got = {(x[0], x[1]): (x[2], x[3]) for x in c["cells"]}
assert got == want, (sorted(got.items()), sorted(want.items()))
for x in c["cells"]:
    assert x[4] > 0, x  # every pair holds some of its members' time
assert c["bytes_by_pattern"] == {k: pattern[k] for k in ("one-to-all", "all-to-one", "all-pairs", "prefix", "sync")}, c["bytes_by_pattern"]
assert c["bytes"]["value"] == sum(v[0] for v in want.values()), c["bytes"]
# every member's time spread over its pairs: all of it in the cells but a
# single-member communicator's (no pair)
assert c["time_ns"]["quality"] == "measured" and c["time_ns"]["value"] == sum(x["time_ns"]["value"] for x in c["groups"]), c["time_ns"]
paired = sum(x["time_ns"]["value"] for x in c["groups"] if x["size"] > 1)
assert abs(paired - sum(x[4] for x in c["cells"])) <= len(c["cells"]), (paired, c["cells"])
# the groups: communicators by their members in MPI_COMM_WORLD, in their order
text = lambda mem: str(mem[0]) if len(mem) == 1 else ",".join(map(str, mem)) if mem[0] > mem[-1] else "%d-%d" % (mem[0], mem[-1])
g = {(x["function"], x["members"], x["root"]): x for x in c["groups"]}
assert c["groups_total"] == len(c["groups"]) == 5 + 2 * 2, sorted(g)
allw = "0-%d" % (n - 1)
assert g[("MPI_Bcast", allw, 1)]["pattern"] == "one-to-all" and g[("MPI_Bcast", allw, 1)]["calls"] == 2 * n
assert g[("MPI_Alltoall", allw, None)]["bytes"]["value"] == 400 * n * (n - 1)
assert g[("MPI_Barrier", allw, None)]["pattern"] == "sync" and g[("MPI_Barrier", allw, None)]["bytes"]["value"] == 0
for mem in halves:
    b = g[("MPI_Bcast", text(mem), mem[0])]
    assert b["size"] == len(mem) and b["ranks_reporting"] == len(mem) and b["bytes"]["value"] == 500 * (len(mem) - 1), b
    r = g[("MPI_Reduce", text(mem), mem[-1])]
    assert r["pattern"] == "all-to-one" and r["bytes"]["value"] == 512 * (len(mem) - 1), r
for x in c["groups"]:
    assert x["bytes"]["quality"] == "estimated" and x["time_ns"]["quality"] == "measured", x
print("collectives ok:", len(want), "pairs,", dict(pattern))
PY
python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" "$d/payload.json"
rows=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from mpi_collectives where members is not null').fetchone()[0])" "$d/run/pivot.sqlite")
[ "$rows" -ge $((ranks * 7)) ] || { echo "mpi_collectives rows missing from the pivot ($rows)"; exit 1; }
# a Run from before the collectives (its pivot without the table) still
# reports: no collectives in its matrix, nothing else lost
cp -r "$d/run" "$d/old"
python3 -c "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('drop table mpi_collectives'); db.commit()" "$d/old/pivot.sqlite"
"$NUNATAK" report --json "$d/old" >"$d/old.json" || { echo "a Run without mpi_collectives no longer reports"; exit 1; }
python3 - "$d/old.json" "$d/payload.json" <<'PY'
import json, sys
old, new = (json.load(open(f)) for f in sys.argv[1:3])
assert old["ranks"]["comm_matrix"] is None, old["ranks"]["comm_matrix"]  # no peer rows either
assert [r["mpi_calls"] for r in old["ranks"]["rows"]] == [r["mpi_calls"] for r in new["ranks"]["rows"]]
PY
echo "ok ($stack, $ranks ranks)"
