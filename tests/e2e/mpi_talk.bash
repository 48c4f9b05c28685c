# SPDX-License-Identifier: BSD-3-Clause
# Shared body of mpi_talk.sh (Open MPI) and mpi_talk_mpich.sh: who talks to
# whom, measured by interposition (tests/e2e/mpi_talk.c). Expects: launcher,
# mpicc, launcher flags in the array `flags`, and `stack` for messages.
command -v "$launcher" >/dev/null || { echo "skip: $launcher is not installed"; exit 2; }
command -v "$mpicc" >/dev/null || { echo "skip: $mpicc is not installed"; exit 2; }
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_talk.c"
check() { # launcher mpicc flags...
	local launcher=$1 mpicc=$2
	shift 2
	local d="$tmp/$mpicc"
	mkdir -p "$d"
	"$mpicc" -g -O1 -o "$d/talk" "$src"
	"$NUNATAK" run -o "$d/run" -- "$launcher" "$@" -n 4 "$d/talk" </dev/null >"$d/out" 2>"$d/err" || {
		echo "nunatak run under $launcher failed ($?)"; cat "$d/err"; exit 1; }
	grep -q "^talk ok$" "$d/out" || { echo "application output lost"; cat "$d/out"; exit 1; }
	grep -q "point-to-point: 40.4 kB in 19 messages between 9 rank pairs; heaviest rank 3 -> rank 0, 12.0 kB (29.7%) in 3 messages" "$d/err" || {
		echo "no point-to-point summary line under $launcher"; cat "$d/err"; exit 1; }
	"$NUNATAK" report --json "$d/run" >"$d/payload.json"
	python3 - "$d/payload.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
m = p["ranks"]["comm_matrix"]
assert (m["ranks"], m["ranks_reporting"], m["messages"], m["bytes"]) == (4, 4, 19, 40377), m
assert m["unplaced"] == {"messages": 0, "bytes": 0}, m["unplaced"]
# ring 1000 (r + 1) x 3; the split's Sendrecv 500; the duplicate's Ssend 7777;
# the reversed split's 300 (2 -> 0 and 3 -> 1: a stale translation of a reused
# handle would give 0 -> 2 and 1 -> 3)
want = {(0, 1): (3, 3000), (1, 2): (3, 6000), (2, 3): (3, 9000), (3, 0): (3, 12000),
        (0, 2): (1, 500), (2, 0): (2, 800), (1, 3): (1, 500), (3, 1): (2, 800), (0, 3): (1, 7777)}
got = {(t["from"], t["to"]): (t["messages"], t["bytes"]) for t in m["top_pairs"]}
assert got == want, got
assert [t["bytes"] for t in m["top_pairs"]] == sorted((b for _, b in want.values()), reverse=True)
for t in m["top_pairs"]:
    assert t["time_ns"]["quality"] == "measured" and t["time_ns"]["clock"] == "wall clock", t
wait = [t for t in m["top_pairs"] if (t["from"], t["to"]) == (1, 2)][0]
assert wait["time_ns"]["value"] >= 50e6, wait  # rank 2 waited for rank 1's 300 ms sleep (bound loose: a loaded machine)
assert (m["bin"], m["bins"]) == (1, 4), m
cells = {(c[0], c[1]): (c[3], c[2]) for c in m["cells"]}
assert cells == want, cells
assert m["time_ns"]["value"] == sum(c[4] for c in m["cells"]), m
print("matrix ok:", sorted(got.items()))
PY
	python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/run/quality_walk.py" "$d/payload.json"
	sqlite3 "$d/run/pivot.sqlite" "select count(*) from mpi_peers" | grep -qx '1[0-9]' || {
		echo "mpi_peers rows missing from the pivot"; exit 1; }
}
check "$launcher" "$mpicc" "${flags[@]}"
echo "ok ($stack)"
