#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/scale/run.sh N: nunatak finishing a synthetic N-rank MPI Run (issue 22
# item 8). A real 2-rank Open MPI Run of bench/scale/solver.c is recorded
# first (rank 0 sampled by perf, rank 1 counted, both through nunatak's MPI
# probe); then `nunatak run -- mpirun -n N ./solver` runs with a stand-in
# mpirun (fake_mpirun.py) that leaves, instead of N ranks, what N rank shims
# would: 64-rank nodes whose local rank 0 samples (the recorded perf.data),
# every other rank counted (the recorded perf-stat.csv), every rank an MPI
# profile with events and point-to-point partners. Everything after that -
# ingestion, attribution, analysis, store, summary, report.html - is
# nunatak's own work, timed from the stand-in's exit to nunatak's.
# The last line: ranks N finish_s X rss_mb Y page_bytes Z
# (rss: nunatak's peak resident set, the largest of its processes; page:
# report.html). Exit 2 with "skip: ..." when Open MPI or perf is missing.
# Env: NUNATAK (default build/nunatak beside this source tree).
set -eu
n=${1:?usage: bench/scale/run.sh N}
here=$(cd "$(dirname "$0")" && pwd)
NUNATAK=${NUNATAK:-$here/../../build/nunatak}
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null || {
	echo "skip: Open MPI (mpicc.openmpi, mpirun.openmpi) is not installed"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache} NUNATAK_NO_CALIBRATE=1 NUNATAK_SITE_CONFIG=/dev/null
cd "$work"
mpicc.openmpi -g -O2 -fno-omit-frame-pointer -o solver "$here/solver.c"
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
printf '[sampling]\nrank_threshold = 1\n' > nunatak.toml
"$NUNATAK" run -q -o "$work/rec" -- mpirun.openmpi "${flags[@]}" -n 2 ./solver 60000000 \
	</dev/null >rec.out 2>rec.err || { echo "the recording Run failed"; cat rec.err; exit 1; }
rm nunatak.toml
for f in rank-0/perf.data rank-0/mpi-profile.txt rank-1/perf-stat.csv rank-1/mpi-profile.txt; do
	[ -s "rec/collect/$f" ] || { echo "skip: the 2-rank recording left no $f (perf or the MPI probe unavailable here)"; cat rec.err; exit 2; }
done
mkdir bin
cp "$here/fake_mpirun.py" bin/mpirun
chmod +x bin/mpirun
export SCALE_TEMPLATE="$work/rec/collect" SCALE_STAMP="$work/launch_end"
PATH="$work/bin:$PATH" python3 - "$NUNATAK" "$n" "$work" <<'PY'
import os, resource, subprocess, sys, time
nunatak, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(os.path.join(work, "syn.err"), "w") as err:
    rc = subprocess.run([nunatak, "run", "-q", "-o", os.path.join(work, "syn"), "--", "mpirun",
                         "-n", str(n), "./solver"], stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=err).returncode
end = time.monotonic()
if rc != 0 or not os.path.exists(os.environ["SCALE_STAMP"]):
    sys.stdout.write(open(os.path.join(work, "syn.err")).read())
    sys.exit("nunatak run of the synthetic %d-rank Run failed (%d)" % (n, rc))
start = float(open(os.environ["SCALE_STAMP"]).read())
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
page = os.path.getsize(os.path.join(work, "syn", "report.html"))
if os.environ.get("SCALE_KEEP"):
    import shutil
    shutil.copytree(os.path.join(work, "syn"), os.environ["SCALE_KEEP"], dirs_exist_ok=True)
print("ranks %d finish_s %.2f rss_mb %.0f page_bytes %d" % (n, end - start, rss_mb, page))
PY
