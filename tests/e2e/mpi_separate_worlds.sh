#!/bin/bash
# An MPICH program launched by Open MPI's mpirun runs as N separate 1-rank worlds (each rank's own MPI says its MPI_COMM_WORLD holds 1 rank): the Run says so (summary, payload, re-read report), declares mpi-separate-worlds naming both MPIs with MPICH's launcher as the remedy, and never presents them as one 3-rank job (no "3 ranks", no busiest rank, no who-talks-to-whom over them); the same program under MPICH's own mpirun.mpich stays one 3-rank world
set -eu
for t in mpirun.openmpi mpirun.mpich mpicc.mpich python3; do
	command -v "$t" >/dev/null || { echo "skip: $t is not installed"; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # harmless when not root
export OMPI_MCA_rmaps_base_oversubscribe=1 # 3 ranks on fewer cores
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" NUNATAK_NO_CALIBRATE=1
# Open MPI's session directory in a tmpdir of this test's own
export OMPI_MCA_orte_tmpdir_base="$tmp/ompi"
mkdir -p "$tmp/ompi"
d="$tmp/separate worlds"
mkdir -p "$d"
cd "$d"
mpicc.mpich -O1 -o "$d/prog" "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_exit.c"
fail=0
set +e
timeout 600 "$NUNATAK" run -o "$d/run" -- mpirun.openmpi -n 3 "$d/prog" \
	</dev/null >"$d/out" 2>"$d/err"
rc=$?
set -e
echo "mpirun.openmpi, MPICH program: exit $rc"
# the program itself says what it was: three worlds of one
[ "$(grep -c '^rank 0 of 1 says hello$' "$d/out")" = 3 ] || {
	echo "FAIL: the program did not run as three 1-rank worlds"; cat "$d/out" "$d/err"; exit 1; }
[ "$rc" = 0 ] || { echo "FAIL: exit $rc (the program exits 0 as singletons)"; cat "$d/err"; fail=1; }
check_summary() { # $1: stderr of nunatak run or report
	local head
	head=$(grep "separate 1-rank MPI worlds, not one 3-rank job" "$1" | head -1 || true)
	if [ -z "$head" ]; then
		echo "FAIL: $1: no '3 separate 1-rank MPI worlds, not one 3-rank job' line"; cat "$1"; fail=1
	else
		grep -q "3 separate 1-rank MPI worlds, not one 3-rank job (launcher and MPI library do not match" <<<"$head" ||
			{ echo "FAIL: $1: the headline is not the separate worlds': $head"; fail=1; }
		grep -q "imbalance across them not computed" <<<"$head" ||
			{ echo "FAIL: $1: the headline does not say imbalance is not computed: $head"; fail=1; }
	fi
	# never one 3-rank job: no "3 ranks (" headline, no busiest rank, no matrix over them
	if grep -E "(^| )3 ranks \(|busiest rank|point-to-point:|collectives \(estimated" "$1"; then
		echo "FAIL: $1: the separate worlds are presented as one job"; fail=1
	fi
	grep -q "who talks to whom: not placed" "$1" || { echo "FAIL: $1: the matrix's absence is not said"; fail=1; }
	grep -q "degraded \[mpi-separate-worlds\]: launcher and MPI library do not match: Open MPI's launcher .* numbered 3 ranks, but the MPI library of ranks 0-2 (MPICH) says its MPI_COMM_WORLD holds 1 rank.* - launch the program with MPICH's own launcher (mpirun.mpich" "$1" ||
		{ echo "FAIL: $1: no mpi-separate-worlds degradation naming both MPIs and MPICH's launcher"; fail=1; }
}
check_summary "$d/err"
# the pivot keeps what the ranks' MPI said: a re-read Run says the same
set +e
timeout 300 "$NUNATAK" report "$d/run" </dev/null >"$d/report.out" 2>"$d/report.err"
rrc=$?
timeout 300 "$NUNATAK" report --json "$d/run" </dev/null >"$d/payload.json" 2>"$d/json.err"
jrc=$?
set -e
[ "$rrc" = 0 ] && [ "$jrc" = 0 ] || { echo "FAIL: nunatak report exit $rrc, --json $jrc"; cat "$d/report.err" "$d/json.err"; exit 1; }
cat "$d/report.out" "$d/report.err" >"$d/report.all" # the summary, wherever it goes
check_summary "$d/report.all"
python3 - "$d/payload.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))["ranks"]
sw = r.get("separate_worlds")
assert sw and sw["text"] == "3 separate 1-rank MPI worlds", sw
assert sw["worlds"] == 3 and sw["world_size"] == 1 and sw["reporting"] == 3, sw
imb = r["imbalance"]
assert imb["value"] is None and imb["quality"] == "unavailable", imb
assert "MPI_COMM_WORLD holds 1 rank" in imb["reason"], imb
assert r["busiest_rank"] == -1, r["busiest_rank"]
assert r["comm_matrix"] is None, r["comm_matrix"]
print("payload:", sw)
PY
# the control: MPICH's own launcher makes one 3-rank world, said as such
set +e
timeout 600 "$NUNATAK" run -o "$d/run-own" -- mpirun.mpich -n 3 "$d/prog" \
	</dev/null >"$d/own.out" 2>"$d/own.err"
rc=$?
set -e
echo "mpirun.mpich, MPICH program: exit $rc"
[ "$(grep -c ' of 3 says hello$' "$d/own.out")" = 3 ] || {
	echo "FAIL: the control did not run as one 3-rank world"; cat "$d/own.out" "$d/own.err"; exit 1; }
grep -q " 3 ranks (" "$d/own.err" || { echo "FAIL: the control is not said as 3 ranks"; cat "$d/own.err"; fail=1; }
if grep -q "separate [0-9]*-rank MPI world\|mpi-separate-worlds\|who talks to whom: not placed" "$d/own.err"; then
	echo "FAIL: one world said as separate ones"; cat "$d/own.err"; fail=1
fi
[ "$fail" = 0 ] || exit 1
echo "ok: separate 1-rank worlds said as such, never as one job; one world stays one"
