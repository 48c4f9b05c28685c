# SPDX-License-Identifier: BSD-3-Clause
# Shared body of mpi_f08.sh (Open MPI) and mpi_f08_mpich.sh: a `use mpi_f08`
# program (tests/e2e/mpi_f08.f90) on 2 ranks. Its MPI_Init goes through the
# mpi_f08 bindings, which reach PMPI_* directly, so nunatak's probe can never
# start: the Run says so before the launch (mpi-analysis-unavailable naming
# mpi_f08, with `use mpi` as the remedy, never static linking), injects
# nothing, and the application's output and exit status are as bare.
# Expects: launcher, fc (the MPI Fortran wrapper), `flags` (launcher flags).
command -v "$launcher" >/dev/null || { echo "skip: $launcher is not installed"; exit 2; }
command -v "$fc" >/dev/null || { echo "skip: $fc is not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
set -eu
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # harmless when not root
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" NUNATAK_NO_CALIBRATE=1
# Open MPI's session directory in a tmpdir of this test's own
export OMPI_MCA_orte_tmpdir_base="$tmp/ompi"
mkdir -p "$tmp/ompi"
cd "$tmp"
d="$tmp/$fc dir"
mkdir -p "$d"
cp "$NUNATAK_SOURCE_DIR/tests/e2e/mpi_f08.f90" "$d/f08.f90"
if ! (cd "$d" && "$fc" -g -O1 -o "$d/f08" "$d/f08.f90") >"$d/build.err" 2>&1; then
	if grep -qi "mpi_f08" "$d/build.err"; then
		echo "skip: $fc has no mpi_f08 module: $(head -c 300 "$d/build.err")"
		exit 2
	fi
	echo "FAIL: $fc could not build the program"; cat "$d/build.err"; exit 1
fi
set +e
timeout 300 "$launcher" "${flags[@]}" -n 2 "$d/f08" </dev/null >"$d/bare.out" 2>"$d/bare.err"
bare=$?
timeout 600 "$NUNATAK" run -o "$d/run" -- "$launcher" "${flags[@]}" -n 2 "$d/f08" \
	</dev/null >"$d/out" 2>"$d/err"
got=$?
set -e
echo "bare exit $bare, under nunatak $got"
fail=0
[ "$bare" = 3 ] || { echo "FAIL: the program exits $bare bare, not 3"; cat "$d/bare.out" "$d/bare.err"; fail=1; }
[ "$got" = "$bare" ] || { echo "FAIL: exit status $got under nunatak, $bare bare"; fail=1; }
if ! diff <(sort "$d/bare.out") <(sort "$d/out"); then
	echo "FAIL: the application's output changed"; fail=1
fi
grep -q "^ *f08 rank 1 of 2 sum 3$" "$d/out" || { echo "FAIL: rank 1's line is missing"; cat "$d/out"; fail=1; }
# announced before the launch, and nothing injected
python3 - "$d/err" "$d/run/manifest.json" "$d/f08" <<'PY' || fail=1
import json, sys
err = open(sys.argv[1]).read().splitlines()
launch = next((i for i, l in enumerate(err) if "launching ranks" in l), None)
assert launch is not None, "no launch line:\n" + "\n".join(err)
before = [l for l in err[:launch] if "degraded [mpi-analysis-unavailable]" in l]
assert before, "mpi-analysis-unavailable not announced before the launch:\n" + "\n".join(err)
assert "mpi_f08" in before[0] and "mpi_init_f08" in before[0] and sys.argv[3] in before[0], before[0]
assert "--mpi-profile" not in err[launch], "the MPI probe was injected: " + err[launch]
degs = [g for g in json.load(open(sys.argv[2]))["degradations"]
        if g["name"] == "mpi-analysis-unavailable"]
assert degs, "no mpi-analysis-unavailable in the Run"
for g in degs:
    text = (g["message"] + " " + g["remedy"]).lower()
    assert "mpi_f08" in g["message"], g
    assert "static" not in text, "blames static linking: %s" % g
    assert "`use mpi` instead of `use mpi_f08`" in g["remedy"], g
PY
if [ "$fail" != 0 ]; then
	echo "--- nunatak's stderr"; cat "$d/err"; exit 1
fi
echo "ok: $launcher, $fc"
