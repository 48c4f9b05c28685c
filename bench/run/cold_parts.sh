#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Where the first Run's own CPU goes (issue 27, "the first Run"): the CPU a
# `nunatak run` pays only with an empty tool cache, split into its parts by
# Runs that differ in one thing, interleaved in rounds so the drifts of a
# shared machine hit every variant:
#   warm     the tool cache kept from the Runs before (no calibration);
#   cold     an empty tool cache ($XDG_CACHE_HOME/nunatak absent);
#   cold+k   an empty tool cache but for the kernel's table of this boot
#            (kallsyms/ and the seal key copied from the warm cache), so
#            cold - cold+k is what reading /proc/kallsyms and storing it cost;
#            as root with perf 6.1, whose table of a few kallsyms lines is
#            made in the same read (attrib.h, attrib_kernel_read_boot),
#            cold+k still reads the file once for perf's table, and
#            cold - cold+k is the kernel table's encoding and store only;
#   probes   `perf --version` and the chosen llvm-symbolizer's `--version`
#            run alone: the tool probes a cold Run makes before the launch.
# CPU is user+system of the children (getrusage), perf's and the symbolizers'
# included: robust to other processes' load, unlike wall time. Prints the
# medians over the rounds and the load.
# Env: NUNATAK (binary), APP (default the heat example beside NUNATAK, else
# FALLBACK_SRC built), ARGS (APP's arguments; heat: "512 300 0"), ROUNDS (>= 3,
# default 7), BASE (another nunatak binary, say main's build: its warm, cold
# and cold+k Runs interleave in the same rounds, each binary with its own
# caches, and the last lines compare the two binaries' parts).
set -eu
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/lib.sh"
if [ -n "${APP:-}" ]; then
	[ -f "$APP" ] && [ -x "$APP" ] || { echo "cold_parts.sh: APP=$APP is not an executable file" >&2; exit 1; }
	APP=$(abs "$APP")
else
	APP="$(dirname "$NUNATAK")/examples/c/example_heat_disabled"
	if [ ! -x "$APP" ]; then
		[ -n "${FALLBACK_SRC:-}" ] || { echo "cold_parts.sh: $APP is not built; set APP or FALLBACK_SRC" >&2; exit 1; }
		cc -O1 -o "$WORK/two_hot" "$FALLBACK_SRC"
		APP="$WORK/two_hot"
	fi
fi
case "$(basename "$APP")" in
*heat*) ARGS=${ARGS:-512 300 0} ;;
*) ARGS=${ARGS:-300000000} ;;
esac
if [ -n "${BASE:-}" ]; then
	[ -x "$BASE" ] || { echo "cold_parts.sh: BASE=$BASE is not an executable nunatak" >&2; exit 1; }
	BASE=$(abs "$BASE")
fi
echo "program: $APP $ARGS"
export NUNATAK_SITE_CONFIG=/dev/null NUNATAK_NO_CALIBRATE=1
cd "$WORK"
exec python3 - "$NUNATAK" "${ROUNDS:-7}" "$APP" "$ARGS" "${BASE:-}" <<'PY'
import json, os, resource, shutil, statistics, subprocess, sys
nunatak, rounds, app, args, base = sys.argv[1:6]
rounds = max(3, int(rounds))
cmd = [app] + args.split()
med = statistics.median

def cpu(argv, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                   check=False)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def run(cache, binary=nunatak):
    env = dict(os.environ, XDG_CACHE_HOME=os.path.abspath(cache))
    c = cpu([binary, "run", "-q", "-o", "r", "--freq", "997", "--call-graph", "fp", "--"] + cmd,
            env)
    shutil.rmtree("r", ignore_errors=True)
    return c

# The symbolizer a Run chooses, as doctor names it: "<version> (<path>)".
doc = json.loads(subprocess.run([nunatak, "doctor", "--json"], capture_output=True,
                                text=True, env=dict(os.environ, XDG_CACHE_HOME=os.path.abspath("d"))
                                ).stdout or "{}")
llvm = next((c["detail"] for c in doc.get("checks", []) if c.get("name") == "llvm"), "")
symbolizer = llvm[llvm.rfind("(") + 1:-1] if llvm.endswith(")") else None
# Each binary's own warm cache: this program's answers and the kernel's table.
binaries = [("", nunatak)] + ([("base_", base)] if base else [])
for who, binary in binaries:
    run(who + "warm", binary)
# Not there when the kernel's symbols cannot be read here (kptr_restrict):
# then cold+k is another cold Run, and says so.
ktable = all(os.path.isdir(f"{who}warm/nunatak/kallsyms") and
             os.path.isfile(f"{who}warm/nunatak/seal.key") for who, _ in binaries)
if not ktable:
    print("note: the warm cache holds no kernel table here: cold+k is a cold Run")
rows = []
for i in range(rounds):
    got = {}
    order = [(who, binary, kind) for who, binary in binaries
             for kind in ("warm", "cold", "cold+k")]
    for who, binary, kind in (order if i % 2 else order[::-1]):
        d = who + ("warm" if kind == "warm" else f"{kind}{i}")
        if kind == "cold+k" and ktable:
            os.makedirs(f"{d}/nunatak", mode=0o700)
            shutil.copytree(f"{who}warm/nunatak/kallsyms", f"{d}/nunatak/kallsyms")
            shutil.copy2(f"{who}warm/nunatak/seal.key", f"{d}/nunatak/seal.key")
        got[who + kind] = run(d, binary)
        if kind != "warm":
            shutil.rmtree(d)
    got["perf --version"] = cpu(["perf", "--version"])
    got["symbolizer --version"] = cpu([symbolizer, "--version"]) if symbolizer else float("nan")
    rows.append(got)

def m(f):
    return med(f(r) for r in rows)

load = os.getloadavg()
print(f"{rounds} rounds, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min); "
      f"CPU s, medians")
print(f"  warm Run {m(lambda r: r['warm']):.3f}, cold Run {m(lambda r: r['cold']):.3f}, "
      f"cold with the kernel's table cached {m(lambda r: r['cold+k']):.3f}")
print(f"  cold - warm (all the cold-only CPU): {m(lambda r: r['cold'] - r['warm']):+.3f}")
print(f"    the kernel's table (cold - cold+k): {m(lambda r: r['cold'] - r['cold+k']):+.3f}")
print(f"    perf --version alone: {m(lambda r: r['perf --version']):.3f}; "
      f"{symbolizer or 'no llvm-symbolizer'} --version alone: "
      f"{m(lambda r: r['symbolizer --version']):.3f}")
print(f"    the rest (cold+k - warm - the two probes: the symbolizer's first answers, "
      f"cache writes): "
      f"{m(lambda r: r['cold+k'] - r['warm'] - r['perf --version'] - r['symbolizer --version']):+.3f}")
if base:
    print(f"  {base} (BASE) against {nunatak}, the same rounds, per round NUNATAK - BASE "
          f"(median, min, max):")
    for what, f in (("cold Run", lambda r, w: r[w + "cold"]),
                    ("warm Run", lambda r, w: r[w + "warm"]),
                    ("the kernel's table (cold - cold+k)",
                     lambda r, w: r[w + "cold"] - r[w + "cold+k"]),
                    ("all the cold-only CPU (cold - warm)",
                     lambda r, w: r[w + "cold"] - r[w + "warm"])):
        d = [f(r, "") - f(r, "base_") for r in rows]
        print(f"    {what:<36} BASE {m(lambda r: f(r, 'base_')):.3f}, NUNATAK "
              f"{m(lambda r: f(r, '')):.3f}; {med(d):+.3f} ({min(d):+.3f}, {max(d):+.3f})")
PY
