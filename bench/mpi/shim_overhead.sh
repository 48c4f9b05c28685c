#!/bin/bash
# The rank shim's cost: wall time of `mpirun -n 4 mpi_imbalance` bare, with
# the shim sampling every rank, and with the shim counting (rank 0 samples,
# the others count), over several interleaved triples. Prints ratios to the
# bare launch measured in the same run; asserts nothing.
# usage: shim_overhead.sh NUNATAK APP [pairs=5] [units=60] [ranks=4]
set -eu
nunatak=$1 app=$2 pairs=${3:-5} units=${4:-60} ranks=${5:-4}
command -v mpirun >/dev/null || { echo "mpirun not found: nothing to measure"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi=(mpirun --oversubscribe --allow-run-as-root -n "$ranks")
now() { date +%s.%N; }
run() { # label, command...
	local label=$1 t0 t1
	shift
	rm -rf "$tmp/collect" && mkdir "$tmp/collect"
	t0=$(now)
	"$@" >/dev/null
	t1=$(now)
	echo "$label $t0 $t1" >>"$tmp/times"
}
shim=("$nunatak" rank-shim --directory "$tmp/collect")
run warmup "${mpi[@]}" "$app" "$units"
for i in $(seq "$pairs"); do
	run bare "${mpi[@]}" "$app" "$units"
	run sampled "${mpi[@]}" "${shim[@]}" -- "$app" "$units"
	run counted "${mpi[@]}" "${shim[@]}" --rank-threshold 1 -- "$app" "$units"
done
python3 - "$tmp/times" "$ranks" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
t = {}
for label, t0, t1 in rows:
    t.setdefault(label, []).append(float(t1) - float(t0))
bare = t["bare"]
print(f"mpirun -n {sys.argv[2]}: bare median {statistics.median(bare):.3f} s over {len(bare)} runs")
for mode in ("sampled", "counted"):
    ratios = [s / b for s, b in zip(t[mode], bare)]
    delta = statistics.median(t[mode]) - statistics.median(bare)
    print(f"  shim, {mode:7s}: median {statistics.median(t[mode]):.3f} s; ratio to bare "
          f"median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}); "
          f"+{delta:.3f} s wall per launch (ranks run concurrently)")
PY
