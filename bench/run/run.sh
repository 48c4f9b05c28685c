#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `nunatak run --freq 997 -- APP` against the bare APP, for runs of about 1 s,
# 5 s and 15 s (a short job and realistic HPC durations), in interleaved
# pairs so the drifts of a shared machine hit both sides. Per duration it
# prints the median wall-time ratio (target <= 1.05) and where the extra time
# goes (medians over the pairs):
#   perf fixed   `perf record -- true`: perf's start-up and teardown;
#   sampling     perf record APP - bare APP - perf fixed: the timer samples;
#   nunatak      nunatak run APP - perf record APP: nunatak's own work, before
#                launch (perf --version, tool lookup) and after (ingest,
#                attribution's symbolizers, store, report, summary).
# (Medians of per-pair differences: they need not add up exactly.)
# Then the cost per sample on this machine, (cpu_perf - cpu_bare - cpu_fixed)
# / samples over the pairs of the longest duration (CPU time of the children,
# perf's own process included: robust to other processes' load, unlike wall
# time), beside the one the calibration measured for the Runs' overhead line
# (docs/cli/run.md "Overhead"; the application's share only).
# Env: NUNATAK (binary), APP (CPU-bound program; default the bundled heat
# example, whose iterations are scaled to DURATIONS), DURATIONS (s, default
# "1 5 15"), PAIRS (>= 5), FALLBACK_SRC (two_hot.c, built when APP is absent).
set -eu
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -z "${APP:-}" ] || [ ! -x "$APP" ]; then
	cc -O1 -o "$WORK/two_hot" "$FALLBACK_SRC"
	APP="$WORK/two_hot"
fi
export NUNATAK_SITE_CONFIG=/dev/null
cd "$WORK"
exec python3 - "$NUNATAK" "${PAIRS:-5}" "${XDG_CACHE_HOME:-$HOME/.cache}" \
	"${DURATIONS:-1 5 15}" "$APP" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
nunatak, pairs, cache, durations, app = sys.argv[1:6]
pairs = max(5, int(pairs))
durations = [float(d) for d in durations.split()]
# nunatak's own perf record options (tools/perf.c), so "perf record" here
# is exactly the collector nunatak runs.
PERF = ["perf", "record", "--freq", "997", "-e", "task-clock", "--call-graph", "fp",
        "-k", "CLOCK_MONOTONIC",
        "--no-bpf-event", "--no-buildid-cache", "--quiet"]
med = statistics.median

def timed(cmd, env=None):
    """(wall s, CPU s of the children) of one command."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=env)
    t1, r1 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def samples_in(data):
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                         text=True).stdout
    return sum(1 for l in out.splitlines() if l.strip())

def argv_for(seconds):
    """The APP command running about `seconds` (heat: iterations scaled)."""
    if "heat" not in os.path.basename(app):
        return [app, str(int(1.5e9 * seconds))]
    probe = 2000
    wall, _ = timed([app, "512", str(probe), "0"])
    return [app, "512", str(max(100, int(probe * seconds / wall))), "0"]

def one_duration(seconds):
    cmd = argv_for(seconds)
    rows = []
    for i in range(pairs):
        bare = timed(cmd)
        nun = timed([nunatak, "run", "-q", "-o", f"r{i}", "--freq", "997", "--call-graph", "fp",
                     "--"] + cmd)
        perf = timed(PERF + ["-o", f"p{i}.data", "--"] + cmd)
        fixed = timed(PERF + ["-o", f"t{i}.data", "--", "true"])
        # the same Run with an empty tool cache (exec/cache.c): a first Run
        # on this machine, or on freshly rebuilt binaries and libraries
        cold_env = dict(os.environ, XDG_CACHE_HOME=os.path.abspath(f"x{i}"),
                        NUNATAK_NO_CALIBRATE="1")
        cold = timed([nunatak, "run", "-q", "-o", f"c{i}", "--freq", "997", "--call-graph", "fp",
                      "--"] + cmd,
                     cold_env)
        rows.append((bare, nun, perf, fixed, samples_in(f"p{i}.data"), cold))
        subprocess.run(["rm", "-rf", f"r{i}", f"c{i}", f"x{i}", f"p{i}.data", f"t{i}.data"])
    b, n, p, f = (med(r[k][0] for r in rows) for k in range(4))
    print(f"~{seconds:g} s: {' '.join(cmd)}  ({pairs} pairs, 997 Hz, "
          f"~{int(med(r[4] for r in rows))} samples)")
    print(f"  bare {b:.3f} s, nunatak run {n:.3f} s: wall ratio median "
          f"{med(r[1][0] / r[0][0] for r in rows):.3f} (target <= 1.05); "
          f"perf record alone {med(r[2][0] / r[0][0] for r in rows):.3f}")
    print(f"  where the {med(r[1][0] - r[0][0] for r in rows):+.3f} s go: perf fixed {f:.3f} s, "
          f"sampling {med(r[2][0] - r[0][0] - r[3][0] for r in rows):.3f} s, nunatak's own "
          f"(setup + post-processing) {med(r[1][0] - r[2][0] for r in rows):.3f} s "
          f"(target < 0.15 s); with an empty tool cache "
          f"{med(r[5][0] - r[2][0] for r in rows):.3f} s")
    print(f"  nunatak's own CPU (robust to other load): "
          f"{med(r[1][1] - r[2][1] for r in rows):.3f} s, with an empty tool cache "
          f"{med(r[5][1] - r[2][1] for r in rows):.3f} s")
    print(f"  CPU ratio median {med(r[1][1] / r[0][1] for r in rows):.3f} "
          f"(nunatak, perf and the symbolizers over the bare CPU)")
    return rows

rows = []
for d in durations:
    rows = one_duration(d)
# The cost per sample, from the longest duration (the most samples).
costs = [(r[2][1] - r[0][1] - r[3][1]) / r[4] for r in rows if r[4] > 0]
walls = [(r[2][0] - r[0][0] - r[3][0]) / r[4] for r in rows if r[4] > 0]
if costs:
    c = med(costs)
    print(f"cost per sample (longest duration): CPU median {c * 1e6:.1f} us "
          f"(min {min(costs) * 1e6:.1f}, max {max(costs) * 1e6:.1f}); wall median "
          f"{med(walls) * 1e6:.1f} us; sampling at 997 Hz costs {c * 997 * 100:.1f}% of the "
          f"sampled CPU time")
    m = json.loads(subprocess.run([nunatak, "calibrate", "--json"], capture_output=True,
                                  text=True).stdout or "{}")
    for x in m.get("machine", {}).get("costs", []):
        v = x["value"]
        print(f"  the calibration's {x['name']}: "
              f"{'%.1f us' % (v * 1e6) if v is not None else 'unavailable'} ({x['quality']}"
              f"{': ' + x['reason'] if x['reason'] else ''})")
PY
