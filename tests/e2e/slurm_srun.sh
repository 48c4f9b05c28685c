#!/bin/bash
# A real two-node Slurm cluster (tests/slurm/cluster.sh): `nunatak run -- srun -N 2 -n 4` of an Open MPI program (--mpi=pmix) and an MPICH one (--mpi=pmi2) keeps the application's output and exit status as bare srun; every rank knows the world size (4) and its node (n1 n1 n2 n2), every rank is sampled, and the probe links the program's own MPI
. "$NUNATAK_SOURCE_DIR/tests/e2e/slurm_lib.bash" tests/e2e/mpi_exit.c
fail=0
# Each node has its own /dev/shm, as real nodes do: Open MPI's shared-memory
# segments are named from the host and Slurm's job id, the same in every test
# cluster (n1, n2, jobs from 1); two clusters at once shared them and their
# ranks crashed in mca_btl_vader (tests/slurm/cluster.sh)
if ! shared=$(grep -h "no private /dev/shm" "$cluster_dir"/node-n*/slurmd.out); then
	mark="nunatak-shm-$$"
	timeout 300 srun -N 1 -n 1 -w n1 sh -c "echo n1 >/dev/shm/$mark" </dev/null || { echo "FAIL: srun -w n1 exited $?"; fail=1; }
	seen=$(timeout 300 srun -N 1 -n 1 -w n2 sh -c "cat /dev/shm/$mark 2>/dev/null || echo none" </dev/null) || true
	here=$(cat "/dev/shm/$mark" 2>/dev/null || echo none)
	rm -f "/dev/shm/$mark"
	echo "/dev/shm/$mark written on n1: n2 sees '$seen', this machine '$here'"
	[ "$seen" = none ] && [ "$here" = none ] || { echo "FAIL: n1's /dev/shm is not its own"; fail=1; }
else
	echo "note: not checked: $shared"
fi
for pair in "openmpi pmix libmpi.so.40" "mpich pmi2 libmpich.so.12"; do
	read -r mpi plugin soname <<<"$pair"
	set +e
	timeout 300 srun -N 2 -n 4 --mpi="$plugin" "$tmp/prog_$mpi" 3 >"$mpi.bare.out" 2>"$mpi.bare.err" </dev/null
	bare=$?
	set -e
	need_bare "$mpi.bare.out" "$mpi.bare.err" "$bare" "srun --mpi=$plugin ($mpi)"
	set +e
	timeout 600 "$NUNATAK" run -o "$tmp/run-$mpi" -- srun -N 2 -n 4 --mpi="$plugin" "$tmp/prog_$mpi" 3 \
		>"$mpi.out" 2>"$mpi.err" </dev/null
	got=$?
	set -e
	echo "$mpi over $plugin: bare srun exit $bare, under nunatak $got"
	[ "$bare" = "$got" ] || { echo "FAIL: $mpi: exit $got under nunatak, $bare bare"; cat "$mpi.err" "$mpi.bare.err"; fail=1; }
	diff <(sort "$mpi.bare.out") <(sort "$mpi.out") || { echo "FAIL: $mpi: the output changed"; fail=1; }
	[ "$(grep -c 'of 4 says hello' "$mpi.out")" = 4 ] || { echo "FAIL: $mpi: not 4 ranks of 4"; cat "$mpi.out"; fail=1; }
	rank_rows "$tmp/run-$mpi" >"$mpi.rows"
	cat "$mpi.rows"
	want="0 4 n1 sampler True False
1 4 n1 sampler True False
2 4 n2 sampler True False
3 4 n2 sampler True False"
	[ "$(cat "$mpi.rows")" = "$want" ] || { echo "FAIL: $mpi: ranks, world size, nodes or roles wrong (want: $want)"; cat "$mpi.err"; fail=1; }
	# The ping-pong crossed the nodes (rank 0 on n1, rank 3 on n2), and measured
	# n1's shared memory too (ranks 0 and 1): both sides, each named for what
	# it crossed. (When the probe itself failed, the Run says so instead.)
	python3 - "$tmp/run-$mpi/manifest.json" "$mpi.err" <<'PY' || fail=1
import json, sys
c = {x["name"]: x for x in json.load(open(sys.argv[1]))["machine"]["ceilings"]}
net = {k: (v["value"], v["quality"]) for k, v in c.items() if k.startswith("network_")}
print("network Ceilings:", net)
if "network_latency" not in c:
    assert "network-ceilings-unavailable" in open(sys.argv[2]).read(), "no network Ceiling, no reason"
else:
    for k in ("network_latency", "network_bandwidth", "network_latency_intranode",
              "network_bandwidth_intranode"):
        assert k in c and c[k]["value"] > 0, ("FAIL", k, net)
        # measured, or estimated only for dispersed repetitions (a loaded machine),
        # never for a shared-memory pair posing as the interconnect
        assert c[k]["quality"] == "measured" or "disperse" in c[k]["reason"], ("FAIL", k, c[k])
        assert "single-node" not in (c[k]["reason"] or ""), ("FAIL", k, c[k])
PY
	lib=$(grep -o -- '--mpi-profile [^ ]*' "$mpi.err" | head -1 | cut -d' ' -f2)
	{ [ -n "$lib" ] && ldd "$lib" | grep -q "$soname"; } || { echo "FAIL: $mpi: the probe ($lib) does not link $soname"; fail=1; }
done
[ "$fail" = 0 ] || exit 1
echo "ok: srun across two nodes, Open MPI over PMIx and MPICH over PMI-2: output and exit kept, every rank sampled with its world size and node"
