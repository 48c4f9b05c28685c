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
# example beside NUNATAK, build/examples/c/example_heat_disabled, whose
# iterations are scaled to DURATIONS), DURATIONS (s, default "1 5 15"), PAIRS
# (>= 5), FALLBACK_SRC (two_hot.c, built only when APP is unset and the heat
# example is not built: an APP that is set but missing is an error, never
# silently another program), BASE (another nunatak binary, say main's build:
# its Runs interleave in the same pairs, warm and with an empty tool cache,
# and the last lines compare the two binaries' own CPU).
# The first line names the program measured; each duration's line gives the
# 1-min load at its first pair and after its last (figures under load are
# noisy: say the load beside them).
set -eu
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/lib.sh"
if [ -n "${BASE:-}" ]; then
	[ -x "$BASE" ] || { echo "run.sh: BASE=$BASE is not an executable nunatak" >&2; exit 1; }
	BASE=$(abs "$BASE")
fi
if [ -n "${APP:-}" ]; then
	if [ ! -f "$APP" ] || [ ! -x "$APP" ]; then
		echo "run.sh: APP=$APP is not an executable file (the bundled heat example is" \
			"build/examples/c/example_heat_disabled; unset APP to use it)" >&2
		exit 1
	fi
	APP=$(abs "$APP")
else
	APP="$(dirname "$NUNATAK")/examples/c/example_heat_disabled"
	if [ ! -x "$APP" ]; then
		[ -n "${FALLBACK_SRC:-}" ] || {
			echo "run.sh: $APP is not built; set APP or FALLBACK_SRC" >&2
			exit 1
		}
		echo "note: $APP is not built: measuring $FALLBACK_SRC instead"
		cc -O1 -o "$WORK/two_hot" "$FALLBACK_SRC"
		APP="$WORK/two_hot"
	fi
fi
echo "program: $APP"
export NUNATAK_SITE_CONFIG=/dev/null
cd "$WORK"
exec python3 - "$NUNATAK" "${PAIRS:-5}" "${XDG_CACHE_HOME:-$HOME/.cache}" \
	"${DURATIONS:-1 5 15}" "$APP" "${BASE:-}" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
nunatak, pairs, cache, durations, app, base = sys.argv[1:7]
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

def own_run(binary, out, cmd, cache_dir):
    """One Run of binary over cmd with its tool cache at cache_dir (no calibration)."""
    env = dict(os.environ, XDG_CACHE_HOME=os.path.abspath(cache_dir), NUNATAK_NO_CALIBRATE="1")
    r = timed([binary, "run", "-q", "-o", out, "--freq", "997", "--call-graph", "fp", "--"] + cmd,
              env)
    subprocess.run(["rm", "-rf", out])
    return r

versus = []  # per pair: {(binary, "warm" | "cold"): CPU s beyond perf record}
def compare_pair(i, cmd, perf):
    """BASE and NUNATAK, warm (each its own kept cache) and cold (an empty
    one), in an order that alternates between pairs; CPU beyond the pair's
    perf record, so the drifts of a shared machine hit both binaries."""
    got = {}
    order = [("base", base), ("new", nunatak)]
    for who, binary in (order if i % 2 else order[::-1]):
        for kind in ("warm", "cold"):
            d = f"warm_{who}" if kind == "warm" else f"x{i}_{who}"
            got[(who, kind)] = own_run(binary, f"v{i}", cmd, d)[1] - perf[1]
            if kind == "cold":
                subprocess.run(["rm", "-rf", d])
    return got

def one_duration(seconds):
    cmd = argv_for(seconds)
    rows = []
    load0 = os.getloadavg()[0]
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
        if base:
            versus.append(compare_pair(i, cmd, perf))
        subprocess.run(["rm", "-rf", f"r{i}", f"c{i}", f"x{i}", f"p{i}.data", f"t{i}.data"])
    b, n, p, f = (med(r[k][0] for r in rows) for k in range(4))
    print(f"~{seconds:g} s: {' '.join(cmd)}  ({pairs} pairs, 997 Hz, "
          f"~{int(med(r[4] for r in rows))} samples; 1-min load {load0:.2f} at the first "
          f"pair, {os.getloadavg()[0]:.2f} after the last)")
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
    if base:  # each binary's warm cache holds the tools' answers for this program
        for who, binary in (("base", base), ("new", nunatak)):
            own_run(binary, "w", argv_for(d), f"warm_{who}")
    versus = []
    rows = one_duration(d)
    if base:
        print(f"  own CPU beyond perf record, {base} (BASE) against {nunatak}, "
              f"{len(versus)} pairs interleaved:")
        for kind in ("cold", "warm"):
            b = [v[("base", kind)] for v in versus]
            n = [v[("new", kind)] for v in versus]
            print(f"    {kind + (' (empty tool cache)' if kind == 'cold' else ''):<24} "
                  f"BASE {med(b):.3f} s, NUNATAK {med(n):.3f} s; "
                  f"NUNATAK - BASE per pair: median {med(y - x for x, y in zip(b, n)):+.3f} s "
                  f"(min {min(y - x for x, y in zip(b, n)):+.3f}, "
                  f"max {max(y - x for x, y in zip(b, n)):+.3f})")
# The cost per sample, from the longest duration (the most samples).
costs = [(r[2][1] - r[0][1] - r[3][1]) / r[4] for r in rows if r[4] > 0]
walls = [(r[2][0] - r[0][0] - r[3][0]) / r[4] for r in rows if r[4] > 0]
if costs:
    c = med(costs)
    print(f"cost per sample (longest duration): CPU median {c * 1e6:.1f} us "
          f"(min {min(costs) * 1e6:.1f}, max {max(costs) * 1e6:.1f}); wall median "
          f"{med(walls) * 1e6:.1f} us; sampling at 997 Hz costs {c * 997 * 100:.1f}% of the "
          f"sampled CPU time")
if os.environ.get("NUNATAK_NO_CALIBRATE") == "1":
    print("  the calibration's figure: not compared (NUNATAK_NO_CALIBRATE=1)")
elif costs:
    m = json.loads(subprocess.run([nunatak, "calibrate", "--json"], capture_output=True,
                                  text=True).stdout or "{}")
    for x in m.get("machine", {}).get("costs", []):
        v = x["value"]
        print(f"  the calibration's {x['name']}: "
              f"{'%.1f us' % (v * 1e6) if v is not None else 'unavailable'} ({x['quality']}"
              f"{': ' + x['reason'] if x['reason'] else ''})")
PY
