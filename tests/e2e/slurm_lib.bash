# SPDX-License-Identifier: BSD-3-Clause
# Shared start of the Slurm tests (tests/e2e/slurm_*.sh): a two-node cluster
# of this test's own (tests/slurm/cluster.sh), stopped by the EXIT trap
# whatever happens; a skip (exit 2, with the reason) when it cannot come up
# here. Sets tmp (the test's directory), cluster_dir, SLURM_CONF, and builds
# $1 (a C file, relative to the source tree) with mpicc.openmpi and
# mpicc.mpich into $tmp/prog_openmpi, $tmp/prog_mpich.
set -eu
[ "${NUNATAK_SANITIZE:-0}" = 1 ] && { echo "skip: the Slurm tests run in the gcc pass (the cluster's daemons are started once per test; ASan adds nothing here)"; exit 2; }
for t in mpicc.openmpi mpicc.mpich python3; do
	command -v "$t" >/dev/null || { echo "skip: $t is not installed"; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # harmless when not root
tmp=$(mktemp -d)
cluster="$NUNATAK_SOURCE_DIR/tests/slurm/cluster.sh"
cluster_dir=$(mktemp -d -t nunatak-slurm.XXXXXX)
trap '"$cluster" stop "$cluster_dir"; rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
rc=0
bash "$cluster" start "$cluster_dir" </dev/null || rc=$?
[ "$rc" = 0 ] || exit "$rc" # 2: the cluster said why it is a skip
# shellcheck disable=SC1091
. "$cluster_dir/env"
cd "$tmp"
for mpi in openmpi mpich; do
	"mpicc.$mpi" -g -O1 -I "$NUNATAK_SOURCE_DIR/include" -o "$tmp/prog_$mpi" "$NUNATAK_SOURCE_DIR/$1"
done

# rank_rows RUN: "rank world_size node role sampled counted" a line per rank.json
rank_rows() {
	python3 - "$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/collect/rank-*/rank.json")):
    r = json.load(open(f))
    print(r["rank"], r["world_size"], r["node"], r["role"], r["sampled"], r["counted"])
PY
}

# need_bare OUT ERR RC WHAT: the bare launch ran 4 ranks, or the cluster (not
# nunatak, which was not involved) cannot run MPI here: a visible skip.
need_bare() {
	[ "$3" != 124 ] && [ "$(grep -c 'of 4 says hello' "$1")" = 4 ] && return 0
	echo "--- $2 (bare, last lines)"
	tail -n 20 "$2"
	echo "skip: $4 does not run bare on this cluster (exit $3): the cluster, not nunatak"
	exit 2
}
