#!/bin/bash
# srun's MPI plugin against the program's MPI, on the two-node test cluster: an Open MPI program under srun --mpi=pmi2 (or SLURM_MPI_TYPE=pmi2) fails bare in MPI_Init; under nunatak its exit status and output are as bare and the Run names the actual mismatch before the launch (Open MPI needs --mpi=pmix, where the plugin was read), injects nothing, and never blames static linking or mpi_f08; an MPICH program under --mpi=pmix is warned (srun --mpi=pmi2) and said as separate 1-rank worlds; Open MPI under --mpi=pmix gets no such warning
. "$NUNATAK_SOURCE_DIR/tests/e2e/slurm_lib.bash" tests/e2e/mpi_exit.c
fail=0
# bare first: this Open MPI may have been built with a PMI-2 client
set +e
timeout 300 srun -N 2 -n 2 --mpi=pmi2 "$tmp/prog_openmpi" 3 >pmi2.bare.out 2>pmi2.bare.err </dev/null
bare=$?
set -e
echo "Open MPI under srun --mpi=pmi2, bare: exit $bare"
if [ "$bare" = 0 ] || [ "$bare" = 3 ] || [ "$bare" = 124 ]; then
	tail -n 20 pmi2.bare.err
	echo "skip: this Open MPI starts under srun --mpi=pmi2 here (or srun hung: exit $bare): no mismatch to say"
	exit 2
fi
bad_remedies() { # what does not fit this case
	grep -E "mpicc without -static|use mpi_f08|MPI linked statically|perf was killed" "$1"
}
for how in arg env; do
	set +e
	if [ "$how" = arg ]; then
		timeout 600 "$NUNATAK" run -o "$tmp/run-$how" -- srun -N 2 -n 2 --mpi=pmi2 "$tmp/prog_openmpi" 3 \
			>"$how.out" 2>"$how.err" </dev/null
	else
		SLURM_MPI_TYPE=pmi2 timeout 600 "$NUNATAK" run -o "$tmp/run-$how" -- srun -N 2 -n 2 "$tmp/prog_openmpi" 3 \
			>"$how.out" 2>"$how.err" </dev/null
	fi
	got=$?
	set -e
	echo "$how: under nunatak exit $got"
	[ "$got" = "$bare" ] || { echo "FAIL: $how: exit $got under nunatak, $bare bare"; cat "$how.err"; fail=1; }
	diff <(sort pmi2.bare.out) <(sort "$how.out") || { echo "FAIL: $how: the output changed"; fail=1; }
	from="on srun's command line"
	[ "$how" = env ] && from="from SLURM_MPI_TYPE"
	grep -q "warning: the application links Open MPI and srun's MPI plugin is pmi2 ($from): Open MPI needs --mpi=pmix under Slurm" "$how.err" ||
		{ echo "FAIL: $how: the mismatch is not said before the launch"; cat "$how.err"; fail=1; }
	grep -q "degraded \[mpi-analysis-unavailable\]: nunatak injects nothing into the ranks: srun's MPI plugin is pmi2 ($from), but the application links Open MPI .* - launch it with srun --mpi=pmix" "$how.err" ||
		{ echo "FAIL: $how: no degradation with the srun --mpi=pmix remedy"; cat "$how.err"; fail=1; }
	grep -q "degraded \[network-ceilings-unavailable\]: no ping-pong: an Open MPI program cannot start under srun's pmi2 plugin" "$how.err" ||
		{ echo "FAIL: $how: the network Ceilings' reason is not the mismatch"; cat "$how.err"; fail=1; }
	if bad_remedies "$how.err"; then echo "FAIL: $how: a remedy that does not fit"; fail=1; fi
	grep "launching ranks" "$how.err" | grep -q -- "--mpi-profile" && { echo "FAIL: $how: a probe was injected"; fail=1; }
done
# MPICH under PMIx: one world per rank, warned before with srun --mpi=pmi2
set +e
timeout 300 srun -N 2 -n 2 --mpi=pmix "$tmp/prog_mpich" >pmix.bare.out 2>pmix.bare.err </dev/null
bare=$?
timeout 600 "$NUNATAK" run -o "$tmp/run-mpich" -- srun -N 2 -n 2 --mpi=pmix "$tmp/prog_mpich" \
	>mpich.out 2>mpich.err </dev/null
got=$?
set -e
echo "MPICH under srun --mpi=pmix: bare exit $bare, under nunatak $got"
[ "$got" = "$bare" ] || { echo "FAIL: mpich: exit $got under nunatak, $bare bare"; cat mpich.err; fail=1; }
grep -q "srun's MPI plugin is pmix (on srun's command line) and the application links MPICH .* launch it with srun --mpi=pmi2" mpich.err ||
	{ echo "FAIL: mpich: no warning naming srun --mpi=pmi2"; cat mpich.err; fail=1; }
if [ "$(grep -c '^rank 0 of 1 says hello$' pmix.bare.out)" = 2 ]; then
	grep -q "2 separate 1-rank MPI worlds, not one 2-rank job" mpich.err ||
		{ echo "FAIL: mpich: the separate worlds are not said"; cat mpich.err; fail=1; }
else
	echo "note: MPICH under PMIx formed one world here (bare: $(tr '\n' ' ' <pmix.bare.out)); separate worlds not checked"
fi
# the control: Open MPI under PMIx gets no mismatch warning
set +e
timeout 600 "$NUNATAK" run -o "$tmp/run-pmix" -- srun -N 2 -n 2 --mpi=pmix "$tmp/prog_openmpi" \
	>pmix.out 2>pmix.err </dev/null
got=$?
set -e
echo "Open MPI under srun --mpi=pmix: under nunatak exit $got"
[ "$(grep -c ' of 2 says hello$' pmix.out)" = 2 ] || { echo "FAIL: control: not 2 ranks of 2"; cat pmix.out pmix.err; fail=1; }
if grep -q "needs --mpi=pmix\|srun's MPI plugin is" pmix.err; then echo "FAIL: control: a mismatch said where there is none"; fail=1; fi
grep "launching ranks" pmix.err | grep -q -- "--mpi-profile" || { echo "FAIL: control: no probe injected"; cat pmix.err; fail=1; }
[ "$fail" = 0 ] || exit 1
echo "ok: srun's MPI plugin against the program's MPI: the mismatch and its remedy said, the status kept"
