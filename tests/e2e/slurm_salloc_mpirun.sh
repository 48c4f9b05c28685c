#!/bin/bash
# A real two-node Slurm cluster (tests/slurm/cluster.sh): `salloc -N 2 -n 4 nunatak run -- mpirun -n 4` with Open MPI's mpirun and MPICH's (Hydra), each launching its ranks through Slurm: output and exit status as bare, every rank sampled with its world size and its node (n1 n1 n2 n2); nothing said to outlive the application (the srun of Open MPI's daemons ends just after mpirun)
. "$NUNATAK_SOURCE_DIR/tests/e2e/slurm_lib.bash" tests/e2e/mpi_exit.c
fail=0
for mpi in openmpi mpich; do
	set +e
	timeout 300 salloc -N 2 -n 4 "mpirun.$mpi" -n 4 "$tmp/prog_$mpi" 3 >"$mpi.bare.out" 2>"$mpi.bare.err" </dev/null
	bare=$?
	set -e
	need_bare "$mpi.bare.out" "$mpi.bare.err" "$bare" "mpirun.$mpi inside salloc"
	set +e
	timeout 600 salloc -N 2 -n 4 "$NUNATAK" run -o "$tmp/run-$mpi" -- "mpirun.$mpi" -n 4 "$tmp/prog_$mpi" 3 \
		>"$mpi.out" 2>"$mpi.err" </dev/null
	got=$?
	set -e
	echo "mpirun.$mpi in salloc: bare exit $bare, under nunatak $got"
	[ "$bare" = "$got" ] || { echo "FAIL: $mpi: exit $got under nunatak, $bare bare"; cat "$mpi.err" "$mpi.bare.err"; fail=1; }
	diff <(sort "$mpi.bare.out") <(sort "$mpi.out") || { echo "FAIL: $mpi: the output changed"; fail=1; }
	[ "$(grep -c 'of 4 says hello' "$mpi.out")" = 4 ] || { echo "FAIL: $mpi: not 4 ranks of 4"; cat "$mpi.out" "$mpi.err"; fail=1; }
	# the launcher's helpers end with it (Open MPI's mpirun leaves the srun of
	# its daemons a few tens of ms): nothing outlived the application
	! grep -q "application-outlived" "$mpi.err" || { echo "FAIL: $mpi: a helper of the launcher called a process that outlived the application"; grep "application-outlived" "$mpi.err"; fail=1; }
	rows=$(rank_rows "$tmp/run-$mpi")
	echo "$rows"
	want="0 4 n1 sampler True False
1 4 n1 sampler True False
2 4 n2 sampler True False
3 4 n2 sampler True False"
	[ "$rows" = "$want" ] || { echo "FAIL: $mpi: ranks, world size, nodes or roles wrong (want: $want)"; cat "$mpi.err"; fail=1; }
done
[ "$fail" = 0 ] || exit 1
echo "ok: mpirun inside an salloc allocation, Open MPI and MPICH: output and exit kept, every rank on its node"
