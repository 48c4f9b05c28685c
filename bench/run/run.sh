#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `nunatak run --freq 997 -- APP` against the bare APP, interleaved pairs so
# the drifts of a shared machine hit both sides: prints the median wall-time
# ratio (target <= 1.05), the same for `perf record` alone, perf's fixed cost
# per launch (`perf record -- true`), and the marginal CPU cost per sample,
# (cpu_perf - cpu_bare - cpu_fixed) / samples, measured in CPU time
# (getrusage of the children: robust to the load of other processes, unlike
# wall time). That cost is written to $XDG_CACHE_HOME/nunatak/perf-sample-cost,
# which later Runs on this machine use for their overhead estimate
# (docs/cli/run.md "Overhead").
# Env: NUNATAK (binary), APP (CPU-bound program; default: the bundled heat
# example), ARGS, ITER (heat iterations, default 4000), PAIRS (>= 5),
# FALLBACK_SRC (two_hot.c, built when APP is absent).
set -eu
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -z "${APP:-}" ] || [ ! -x "$APP" ]; then
	cc -O1 -o "$WORK/two_hot" "$FALLBACK_SRC"
	APP="$WORK/two_hot"
	ARGS=${ARGS:-1500000000}
fi
case "$APP" in *heat*) ARGS=${ARGS:-"512 ${ITER:-4000} 0"} ;; esac
export NUNATAK_SITE_CONFIG=/dev/null
cd "$WORK"
# shellcheck disable=SC2086
exec python3 - "$NUNATAK" "${PAIRS:-7}" "${XDG_CACHE_HOME:-$HOME/.cache}" "$APP" $ARGS <<'PY'
import json, os, resource, statistics, subprocess, sys, time
nunatak, pairs, cache, app = sys.argv[1], max(5, int(sys.argv[2])), sys.argv[3], sys.argv[4:]
PERF = ["perf", "record", "-q", "-e", "task-clock", "--freq", "997", "--no-bpf-event", "-N"]

def timed(cmd):
    """(wall s, CPU s of the children) of one command."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    t1, r1 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

rows = []
for i in range(pairs):
    bare = timed(app)
    nun = timed([nunatak, "run", "-q", "-o", f"r{i}", "--freq", "997", "--"] + app)
    perf = timed(PERF + ["-o", f"p{i}.data", "--"] + app)
    fixed = timed(PERF + ["-o", f"t{i}.data", "--", "true"])
    m = json.load(open(f"r{i}/manifest.json"))
    samples = (m.get("overhead") or {}).get("samples", 0)
    rows.append((bare, nun, perf, fixed, samples))
    subprocess.run(["rm", "-rf", f"r{i}", f"p{i}.data", f"t{i}.data"])
med = statistics.median
print(f"bench/run: {' '.join(app)}, {pairs} pairs, 997 Hz")
print(f"  bare          wall median {med(r[0][0] for r in rows):.3f} s")
print(f"  nunatak run   wall median {med(r[1][0] for r in rows):.3f} s  "
      f"ratio median {med(r[1][0] / r[0][0] for r in rows):.3f} (target <= 1.05)")
print(f"  nunatak run   CPU ratio median {med(r[1][1] / r[0][1] for r in rows):.3f} "
      f"(CPU of nunatak, perf and the symbolizers over the bare CPU: robust to load)")
print(f"  perf record   wall median {med(r[2][0] for r in rows):.3f} s  "
      f"ratio median {med(r[2][0] / r[0][0] for r in rows):.3f}")
print(f"  perf record -- true (fixed cost per launch): wall median {med(r[3][0] for r in rows):.3f} s, "
      f"CPU {med(r[3][1] for r in rows):.3f} s")
costs = [(r[2][1] - r[0][1] - r[3][1]) / r[4] for r in rows if r[4] > 0]
if costs:
    c = med(costs)
    print(f"  CPU cost per sample: median {c * 1e6:.1f} us over ~{int(med(r[4] for r in rows))} samples")
    if 0 < c < 1e-2:
        d = os.path.join(cache, "nunatak")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "perf-sample-cost"), "w") as f:
            f.write(f"{c:.9f}\n")
        print(f"  written to {d}/perf-sample-cost")
    else:
        print("  not written: not positive (below the noise of this machine)")
PY
