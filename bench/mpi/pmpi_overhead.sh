#!/bin/bash
# The interposition library's cost per MPI call: call_cost (cheap calls in a
# single rank) bare and with nunatak's PMPI library preloaded and recording,
# interleaved over several rounds; prints the median ns per call of each and
# the difference, the library's cost per call. Asserts nothing.
# usage: pmpi_overhead.sh SRC_DIR [mpicc=mpicc] [rounds=5] [calls=1000000]
set -eu
src=$1 mpicc=${2:-mpicc} rounds=${3:-5} calls=${4:-1000000}
command -v "$mpicc" >/dev/null || { echo "$mpicc not found: nothing to measure"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src"/src/mpi/probe/nunatak_mpi*.c "$src"/src/mpi/probe/*.inc "$tmp/"
(cd "$tmp" && "$mpicc" -O2 -fPIC -shared -o libnunatak-mpi.so nunatak_mpi.c -ldl)
"$mpicc" -O2 -o "$tmp/call_cost" "$src/bench/mpi/call_cost.c"
for i in $(seq "$rounds"); do
	"$tmp/call_cost" "$calls" | sed 's/^/bare /' >>"$tmp/times"
	LD_PRELOAD="$tmp/libnunatak-mpi.so" NUNATAK_MPI_PROFILE="$tmp/profile.txt" \
		"$tmp/call_cost" "$calls" | sed 's/^/pmpi /' >>"$tmp/times"
done
grep -q "^function	MPI_Iprobe	$calls	" "$tmp/profile.txt" || {
	echo "the library did not record the calls"; exit 1; }
python3 - "$tmp/times" "$calls" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    mode, fn, ns = line.rsplit(None, 2)[0].split(None, 1)[0], line.split()[1], float(line.split()[-1])
    t.setdefault((fn, mode), []).append(ns)
print(f"{sys.argv[2]} calls per function, median of {len(t[('MPI_Iprobe', 'bare')])} interleaved rounds:")
for fn in ("MPI_Iprobe", "MPI_Test", "MPI_Barrier(self)"):
    b, p = statistics.median(t[(fn, "bare")]), statistics.median(t[(fn, "pmpi")])
    print(f"  {fn:18s} bare {b:7.1f} ns/call, interposed {p:7.1f} ns/call: +{p - b:6.1f} ns per call (x{p / b:.2f})")
PY
