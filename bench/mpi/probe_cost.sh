#!/bin/bash
# The PMPI probe's cost per call (bench/mpi/probe_cost.c): bare (PMPI_*) and
# probed (MPI_* through the probe, recording) interleaved in the same
# process, for each MPI found (Open MPI, MPICH). Prints ns per call and
# ratios; checks only that the probe recorded the calls. Asserts no time.
# Then the polling family through the Fortran bindings (probe_cost_f.f90,
# where that MPI's mpifort is installed): bare and probed in alternating
# processes (PAIRS of them), the fastest round of each.
# usage: probe_cost.sh SRC_DIR [calls per block=20000] [rounds=51]
set -eu
src=$1 calls=${2:-20000} rounds=${3:-51} pairs=${PAIRS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# fortran DIR MPIFORT: the Fortran polling calls' cost, bare against probed
# (DIR/libnunatak-mpi.so), in PAIRS alternating processes.
fortran() {
	local d=$1 mpifort=$2 i
	command -v "$mpifort" >/dev/null || { echo "  (no $mpifort: Fortran bindings not measured)"; return 0; }
	"$mpifort" -O2 -o "$d/probe_cost_f" "$src/bench/mpi/probe_cost_f.f90"
	: >"$d/bare.txt"
	: >"$d/probed.txt"
	for i in $(seq "$pairs"); do
		"$d/probe_cost_f" "$calls" "$rounds" </dev/null >>"$d/bare.txt"
		LD_PRELOAD="$d/libnunatak-mpi.so" NUNATAK_MPI_PROFILE="$d/profile-f.txt" \
			"$d/probe_cost_f" "$calls" "$rounds" </dev/null >>"$d/probed.txt"
		grep -q "^function	MPI_Test	$((calls * rounds))	" "$d/profile-f.txt" || {
			echo "the probe did not record the $((calls * rounds)) Fortran MPI_Test calls:"
			grep MPI_Test "$d/profile-f.txt" || true; exit 1; }
	done
	echo "  Fortran bindings ($mpifort, use mpi), $pairs alternating processes bare/probed of $rounds rounds; fastest round, then median of the processes' medians"
	awk -F'ns/call: fastest' '
		FNR == 1 { k++ }
		{ name = $1; sub(/^ +/, "", name); sub(/ +$/, "", name)
		  split($2, v, " "); f = v[1] + 0; m = v[3] + 0
		  if (!(name in order)) { order[name] = ++nr; names[nr] = name }
		  if (!((k, name) in best) || f < best[k, name]) best[k, name] = f
		  med[k, name, ++nm[k, name]] = m }
		function median(kk, nn,   a, i, j, x, c) {
			c = nm[kk, nn]; for (i = 1; i <= c; i++) a[i] = med[kk, nn, i]
			for (i = 2; i <= c; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 }
		END { for (i = 1; i <= nr; i++) { n = names[i]; b = best[1, n]; p = best[2, n]
			bm = median(1, n); pm = median(2, n)
			printf "  %-28s bare %6.1f probed %6.1f ns/call: probe %+5.1f ns/call, ratio %.2f  (median: %.1f, %.1f, %+.1f, %.2f)\n", \
				n, b, p, p - b, p / b, bm, pm, pm - bm, pm / bm } }' "$d/bare.txt" "$d/probed.txt"
	grep "^polled" "$d/profile-f.txt" | sed "s/^/  profile (Fortran): /"
}

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
	fortran "$d" "${mpicc/mpicc/mpifort}"
done
[ "$found" = 1 ] || echo "no mpicc.openmpi nor mpicc.mpich: nothing to measure"
