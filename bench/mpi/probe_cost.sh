#!/bin/bash
# The PMPI probe's cost per call (bench/mpi/probe_cost.c): bare (PMPI_*) and
# probed (MPI_* through the probe, recording) interleaved in the same
# process, for each MPI found (Open MPI, MPICH). Prints ns per call and
# ratios; checks only that the probe recorded the calls. Asserts no time.
# usage: probe_cost.sh SRC_DIR [calls per block=20000] [rounds=51]
set -eu
src=$1 calls=${2:-20000} rounds=${3:-51}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
found=0
for mpicc in mpicc.openmpi mpicc.mpich; do
	command -v "$mpicc" >/dev/null || continue
	found=1
	d="$tmp/$mpicc"
	mkdir -p "$d"
	cp "$src"/src/mpi/probe/nunatak_mpi.c "$src"/src/mpi/probe/*.inc "$d/"
	(cd "$d" && "$mpicc" -O2 -fPIC -shared -o libnunatak-mpi.so nunatak_mpi.c -ldl)
	"$mpicc" -O2 -o "$d/probe_cost" "$src/bench/mpi/probe_cost.c"
	echo "== $mpicc ($("$mpicc" -show | cut -d' ' -f1))"
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		LD_PRELOAD="$d/libnunatak-mpi.so" NUNATAK_MPI_PROFILE="$d/profile.txt" \
		"$d/probe_cost" "$calls" "$rounds" </dev/null
	want=$((calls * rounds))
	grep -q "^function	MPI_Test	$want	" "$d/profile.txt" || {
		echo "the probe did not record the $want MPI_Test calls:"; grep MPI_Test "$d/profile.txt"; exit 1; }
	grep "^polled\|^probe_cost_ps" "$d/profile.txt" | sed "s/^/  profile: /"
done
[ "$found" = 1 ] || echo "no mpicc.openmpi nor mpicc.mpich: nothing to measure"
