#!/bin/bash
# A real two-node Slurm cluster (tests/slurm/cluster.sh): `sbatch` of a job script whose step is `nunatak run -- srun --mpi=pmix` (Open MPI): the job's output holds the application's and names the Run directory, the job's exit status is the application's (sbatch --wait), every rank of the 2x2 allocation is in the Run with its world size and node
. "$NUNATAK_SOURCE_DIR/tests/e2e/slurm_lib.bash" tests/e2e/mpi_exit.c
cat >"$tmp/job.sh" <<JOB
#!/bin/bash
#SBATCH -N 2 -n 4
#SBATCH -o $tmp/job.out
"$NUNATAK" run -o "$tmp/run" -- srun --mpi=pmix "$tmp/prog_openmpi" 3
JOB
set +e
timeout 600 sbatch --wait "$tmp/job.sh" >sbatch.out 2>sbatch.err </dev/null
rc=$?
set -e
cat sbatch.out
echo "sbatch --wait exit $rc"
[ "$rc" = 3 ] || { echo "FAIL: the job's exit is $rc, the application's is 3"; cat sbatch.err "$tmp/job.out"; exit 1; }
[ "$(grep -c 'of 4 says hello' "$tmp/job.out")" = 4 ] || { echo "FAIL: the application's output is not in the job's"; cat "$tmp/job.out"; exit 1; }
grep -q "Run: $tmp/run\$" "$tmp/job.out" || { echo "FAIL: the job's output does not name the Run directory"; cat "$tmp/job.out"; exit 1; }
rows=$(rank_rows "$tmp/run")
echo "$rows"
want="0 4 n1 sampler True False
1 4 n1 sampler True False
2 4 n2 sampler True False
3 4 n2 sampler True False"
[ "$rows" = "$want" ] || { echo "FAIL: ranks, world size, nodes or roles wrong (want: $want)"; cat "$tmp/job.out"; exit 1; }
echo "ok: sbatch with a nunatak run -- srun step: output, exit status and every rank kept"
