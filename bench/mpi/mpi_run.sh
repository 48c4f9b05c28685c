#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `nunatak run -- mpirun -n 2 APP` against the bare `mpirun -n 2 APP`, in
# interleaved pairs after one warm-up Run (probes built, network Ceilings
# cached: a warm cache, as every Run after the first). APP is LAMMPS' Lennard-
# Jones melt (16^3 fcc lattice, 1000 steps; issue 27) where `lmp` is
# installed, else our own mpi_imbalance example. Prints each pair, the median
# of nunatak's own cost by part from the Runs' manifests ("cost": setup,
# network probe, collection overhead, finish), and on its last line
# `wall_ratio X`: the median of nunatak / bare over the pairs (post-
# processing included); with LAMMPS, the median ratio of its own "Loop time"
# before it (the in-application share: sampling, the MPI probe), and the
# median ratio of CPU time (every process of the run; robust to a shared
# machine's load, unlike wall time, except for ranks that poll or yield
# while they wait: they burn CPU for as long as the wait lasts, so the same
# srun LAMMPS run took 2.5-7.0 s of CPU bare at load 13-14). Asserts nothing.
# usage: mpi_run.sh NUNATAK [FALLBACK_APP]
# env: PAIRS (default 4), RANKS (2), STEPS (1000), LATTICE (16), CALIBRATE=1
# (the warm-up calibrates the Machine: the overhead line gets its cost per
# sample), APP_UNITS (mpi_imbalance's units, 200), LAUNCH (the launcher and
# its options instead of `mpirun -n RANKS`, split on blanks), LAUNCHES
# (several launches, separated by `;`, each with its label after a `|`:
# measured in the same interleaved pairs, bare and nunatak of each launch in
# turn, a block of medians per launch; the last line is the last launch's:
# srun_run.sh passes one rank per node, then two), TIMELINE=1 (before the
# pairs, one bare and one nunatak Run of each launch recorded system-wide,
# `perf record -a`, root: when each phase began and ended, and the CPU time
# of each kind of process, by bench/mpi/timeline.py; NODE_DAEMONS, the pids of
# the node daemons that fork the ranks, from srun_run.sh), AS_USER=<user>
# (root only: each launch is measured a second time in the same interleaved
# pairs, bare and nunatak both run as that user through setpriv, from a
# readable copy of nunatak and its libraries, with the user's own cache and
# warm-up: the figure an ordinary HPC user sees, whose perf reads
# /proc/kallsyms once where root's reads it four times, and which samples
# no kernel time under perf_event_paranoid 2; labelled "as <user>", its
# wall_ratio printed as `wall_ratio as <user> X` before the last line, which
# stays the invoking user's), RUN_OPTS (options of `nunatak run` for every
# Run of the bench, split on blanks: e.g. "--offcpu switches" to see what
# the off-CPU stacks cost). Each launch's block also gives the context
# switches perf recorded per Run (manifest overhead.context_switches), whose
# cost per switch bench/mpi/switch_cost.sh measures.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nunatak=$(realpath "$1") fallback=${2:+$(realpath "$2")}
if [ -n "${LAUNCHES:-}" ]; then
	IFS=';' read -ra launches <<<"$LAUNCHES"
elif [ -n "${LAUNCH:-}" ]; then
	launches=("$LAUNCH")
else
	launches=("mpirun --oversubscribe -n ${RANKS:-2}")
	[ "$(id -u)" = 0 ] && launches=("${launches[0]} --allow-run-as-root")
fi
read -ra run_opts <<<"${RUN_OPTS:-}"
for l in "${launches[@]}"; do
	read -ra words <<<"${l%%|*}"
	command -v "${words[0]}" >/dev/null || { echo "${words[0]} not found: nothing to measure"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" NUNATAK_SITE_CONFIG=/dev/null
[ "${CALIBRATE:-0}" = 1 ] || export NUNATAK_NO_CALIBRATE=1
cd "$work"
# AS_USER: the same launches as an ordinary user (both sides), from copies
# it can read (the build tree may sit under a private home), in a directory
# of its own with its own HOME and tool cache
asuser=()
if [ -n "${AS_USER:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "skip: AS_USER needs root (to run both sides as $AS_USER)"; exit 77; }
	command -v setpriv >/dev/null || { echo "skip: AS_USER needs setpriv (util-linux)"; exit 77; }
	uid=$(id -u "$AS_USER" 2>/dev/null) && gid=$(id -g "$AS_USER") ||
		{ echo "skip: no user $AS_USER on this machine"; exit 77; }
	[ "$uid" != 0 ] || { echo "AS_USER=$AS_USER is root: give an ordinary user (nobody)"; exit 2; }
	u="$work/as-user"
	mkdir -p "$u/bin/lib" "$u/home" "$u/cache" "$u/run"
	cp "$nunatak" "$u/bin/nunatak"
	# the preload sampler and the OMPT tool, found beside nunatak (lib/)
	for f in "$(dirname "$nunatak")"/lib/*.so; do [ ! -f "$f" ] || cp "$f" "$u/bin/lib/"; done
	ufallback=""
	if [ -n "$fallback" ] && [ -x "$fallback" ]; then
		cp "$fallback" "$u/bin/" && ufallback="$u/bin/$(basename "$fallback")"
	fi
	chmod 711 "$work" && chmod -R a+rX "$u/bin" && chown -R "$uid:$gid" "$u/home" "$u/cache" "$u/run"
	asuser=(setpriv "--reuid=$uid" "--regid=$gid" --clear-groups --inh-caps=-all --
		env "HOME=$u/home" "XDG_CACHE_HOME=$u/cache")
	export AS_USER_PREFIX="${asuser[*]}" AS_USER_NUNATAK="$u/bin/nunatak" AS_USER_DIR="$u/run"
fi
if command -v lmp >/dev/null; then
	n=${LATTICE:-16}
	cat > in.melt <<EOF
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 $n 0 $n 0 $n
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 3.0 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify every 20 delay 0 check no
fix 1 all nve
thermo 200
run ${STEPS:-1000}
EOF
	app=("$(command -v lmp)" -in "$work/in.melt" -log none)
	what="LAMMPS LJ melt ${n}^3, ${STEPS:-1000} steps"
elif [ -n "$fallback" ] && [ -x "$fallback" ]; then
	app=("$fallback" "${APP_UNITS:-200}")
	[ -z "${ufallback:-}" ] || export AS_USER_APP="$ufallback"
	what="mpi_imbalance ${APP_UNITS:-200} units (lmp not installed)"
else
	echo "neither lmp nor the mpi_imbalance example: nothing to measure"
	exit 77
fi
for l in "${launches[@]}"; do
	read -ra mpi <<<"${l%%|*}"
	echo "$what, ${mpi[*]}, ${PAIRS:-4} interleaved pairs after a warm-up Run"
	"$nunatak" run -q "${run_opts[@]}" -o warm -- "${mpi[@]}" "${app[@]}" >/dev/null 2>warm.err ||
		{ echo "the warm-up Run failed:"; tail -5 warm.err; exit 1; }
	# what the warm-up paid for the network Ceilings: the ping-pong (the
	# first Run on a node set, MPI stack and transport), or none (cached)
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1])).get("cost", {})
f = c.get("network_ceilings_from") or {}
print("  warm-up Run: network_probe %.3f s, network Ceilings %s%s (load %s)" % (
      c.get("network_probe", {}).get("value") or 0, c.get("network_ceilings", "?"),
      ": " + f["summary"] if f.get("summary") else "", open("/proc/loadavg").read().split()[0]))' \
		warm/manifest.json || true
	rm -rf warm
	[ ${#asuser[@]} -gt 0 ] || continue
	uapp=("${app[@]}")
	[ -z "${AS_USER_APP:-}" ] || uapp[0]=$AS_USER_APP
	(cd "$AS_USER_DIR" && "${asuser[@]}" "$AS_USER_NUNATAK" run -q "${run_opts[@]}" -o warm -- \
		"${mpi[@]}" "${uapp[@]}" \
		>/dev/null 2>"$work/warm.err") ||
		{ echo "the warm-up Run as $AS_USER failed:"; tail -5 "$work/warm.err"; exit 1; }
	echo "  warm-up Run as $AS_USER done"
	rm -rf "${AS_USER_DIR:?}/warm"
done
# One Run of each side of each launch, recorded system-wide: its timeline
daemons=()
for d in ${NODE_DAEMONS:-}; do daemons+=(--daemon "$d"); done
comm=$(basename "${app[0]}" | cut -c1-15)
for l in "${launches[@]}"; do
	[ "${TIMELINE:-0}" = 1 ] || break
	read -ra mpi <<<"${l%%|*}"
	for side in bare nunatak; do
		cmd=("${mpi[@]}" "${app[@]}")
		[ $side = bare ] || cmd=("$nunatak" run -q "${run_opts[@]}" -o tl -- "${mpi[@]}" "${app[@]}")
		# the command's pid, written before it replaces the shell
		if ! perf record -q -a -m 256 -F 1000 -e cpu-clock -o tl.data -- \
			sh -c 'echo $$ >tl.pid; exec "$@"' sh "${cmd[@]}" >tl.out 2>tl.err; then
			echo "timeline: perf record -a failed (root needed): $(tail -n 1 tl.err)"
			break 2
		fi
		echo "timeline of one Run, $side, ${mpi[*]} (load $(cut -d' ' -f1 /proc/loadavg)):"
		perf script -i tl.data -F comm,pid,tid,time,event --show-task-events 2>/dev/null |
			python3 "$here/timeline.py" 1000 "$(cat tl.pid)" "$comm" "${daemons[@]}"
		# LAMMPS' own loop: the ranks' life beyond it is their start (MPI_Init,
		# PMIx, the probe's set-up) and end
		sed -n 's/^Loop time of \([0-9.eE+-]*\) on.*/  the application'"'"'s own loop (LAMMPS): \1 s/p' tl.out
		# the Run's own account beside it: its application part is the
		# launcher's life plus any wait for the ranks' writers or survivors
		[ $side = bare ] || python3 -c 'import json, sys
c = json.load(open(sys.argv[1])).get("cost", {})
print("  the manifest'"'"'s cost: " + ", ".join("%s %.3f s" % (k, v["value"]) for k, v in c.items()
      if isinstance(v, dict) and v.get("value") is not None))' tl/manifest.json
		rm -rf tl tl.data tl.pid tl.out
	done
done
exec python3 - "$nunatak" "${PAIRS:-4}" "${launches[@]}" -- "${app[@]}" <<'PY'
import json, os, re, resource, statistics, subprocess, sys, time
args = sys.argv[1:]
nunatak, pairs = args[0], int(args[1])
sep = args.index("--")
launches, app = args[2:sep], args[sep + 1:]
# (label, launcher argv) per launch: "argv words[|label]"
launches = [(l.partition("|")[2] or l.partition("|")[0], l.partition("|")[0].split())
            for l in launches]
med = statistics.median
run_opts = os.environ.get("RUN_OPTS", "").split()

# CPU time: this process's children (the launcher, nunatak, and the ranks
# when the launcher forks them: mpirun), plus NODE_CPU, a cgroup counter
# holding whatever else runs the ranks (srun_run.sh: the test cluster's
# daemons, whose step daemons fork them). Robust to the other load of a
# shared machine, unlike wall time.
node_cpu_file = os.environ.get("NODE_CPU", "")

def cpu_now():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = ru.ru_utime + ru.ru_stime
    if node_cpu_file.endswith("cpuacct.usage"):
        t += int(open(node_cpu_file).read()) / 1e9
    elif node_cpu_file.endswith("cpu.stat"):
        t += int(re.search(r"^usage_usec (\d+)", open(node_cpu_file).read(), re.M)[1]) / 1e6
    return t

def timed(cmd, cwd):
    """(wall s, exit code, LAMMPS' own 'Loop time' in s or None, CPU s)."""
    c0, t0 = cpu_now(), time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                       errors="replace", cwd=cwd)
    t1, c1 = time.monotonic(), cpu_now()
    m = re.search(r"^Loop time of ([0-9.eE+-]+) on", r.stdout, re.M)
    return t1 - t0, r.returncode, float(m.group(1)) if m else None, c1 - c0

class Launch:
    def __init__(self, label, mpi, prefix=(), nunatak=nunatak, app=app, cwd="."):
        self.label, self.mpi = label, mpi
        # AS_USER's twin: setpriv + env before both sides, its own copies and directory
        self.prefix, self.nunatak, self.app, self.cwd = list(prefix), nunatak, app, cwd
        self.rows, self.parts, self.loops, self.cpus = [], {}, [], []
        self.switches = []  # (switch-outs perf recorded, the application's seconds)

runs = [Launch(label, mpi) for label, mpi in launches]
user, user_prefix = os.environ.get("AS_USER", ""), os.environ.get("AS_USER_PREFIX", "").split()
if user_prefix:
    user_app = [os.environ.get("AS_USER_APP") or app[0]] + app[1:]
    runs += [Launch(f"{label} as {user}", mpi, user_prefix, os.environ["AS_USER_NUNATAK"],
                    user_app, os.environ["AS_USER_DIR"]) for label, mpi in launches]
for i in range(pairs):
    for k, L in enumerate(runs):
        tag = f"{L.label}: " if len(runs) > 1 else ""
        bare, brc, bloop, bcpu = timed(L.prefix + L.mpi + L.app, L.cwd)
        nun, nrc, nloop, ncpu = timed(L.prefix + [L.nunatak, "run", "-q"] + run_opts +
                                      ["-o", f"r{i}", "--"] +
                                      L.mpi + L.app, L.cwd)
        L.cpus.append((bcpu, ncpu))
        if bloop and nloop:
            L.loops.append((bloop, nloop, bare, nun))
        if brc or nrc:
            print(f"{tag}pair {i}: exit codes bare {brc}, nunatak {nrc}")
        L.rows.append((bare, nun))
        out = os.path.join(L.cwd, f"r{i}")
        manifest = json.load(open(f"{out}/manifest.json"))
        cost = manifest.get("cost", {})
        sw = (manifest.get("overhead") or {}).get("context_switches")
        app_s = (cost.get("application") or {}).get("value")
        if sw and app_s:
            L.switches.append((sw, app_s))
        for key, v in cost.items():
            if isinstance(v, dict) and v.get("value") is not None:
                L.parts.setdefault(key, []).append(v["value"])
        # a Run that measured the network again (its cache missed) pays the
        # ping-pong inside the pair: said, as it is not the warm case
        probed = cost.get("network_ceilings") == "measured"
        print(f"{tag}pair {i}: bare {bare:.3f} s, nunatak run {nun:.3f} s, ratio {nun / bare:.3f}; "
              f"CPU bare {bcpu:.3f} s, nunatak run {ncpu:.3f} s; load "
              f"{open('/proc/loadavg').read().split()[0]}"
              f"{'; the network was measured (cache missed)' if probed else ''}",
              flush=True)
        subprocess.run(["rm", "-rf", out])

def summary(L):
    rows, parts, loops, cpus, mpi = L.rows, L.parts, L.loops, L.cpus, L.mpi
    if len(runs) > 1:
        print(f"-- {L.label} ({' '.join(mpi)}):")
    print(f"median: bare {med(r[0] for r in rows):.3f} s, nunatak run {med(r[1] for r in rows):.3f} s, "
          f"extra {med(r[1] - r[0] for r in rows):+.3f} s")
    if L.switches:
        # under perf each costs the ranks' kernel more than a sample's cost
        # says (bench/mpi/switch_cost.sh: per_switch_us on this machine)
        print(f"context switches perf recorded (manifest overhead.context_switches, medians): "
              f"{med(x[0] for x in L.switches):.0f} per Run, "
              f"{med(x[0] / x[1] for x in L.switches):.0f} per second of the application")
    print("nunatak's own cost (manifest 'cost', medians): " +
          ", ".join(f"{k} {med(v):.3f} s" for k, v in parts.items()))
    if loops:
        # inside the application only (sampling, the MPI probe): what the wall
        # ratio holds beyond it is start-up and finish
        print(f"LAMMPS' own loop time (medians): bare {med(l[0] for l in loops):.3f} s, "
              f"nunatak run {med(l[1] for l in loops):.3f} s, "
              f"loop_ratio {med(l[1] / l[0] for l in loops):.3f}")
        # the wall outside LAMMPS' loop: launch, set-up, perf's start-up on
        # each rank, the ranks' end, the launcher's teardown, the finish
        print(f"outside LAMMPS' loop (medians): bare {med(l[2] - l[0] for l in loops):.3f} s, "
              f"nunatak run {med(l[3] - l[1] for l in loops):.3f} s")
    if all(c[0] > 0 for c in cpus):
        print(f"CPU time (medians): bare {med(c[0] for c in cpus):.3f} s, nunatak run "
              f"{med(c[1] for c in cpus):.3f} s, cpu_ratio {med(c[1] / c[0] for c in cpus):.3f}"
              f"{'' if node_cpu_file or mpi[0] != 'srun' else ' (the ranks not included: no NODE_CPU)'}")
    return med(r[1] / r[0] for r in rows)

ratios = [summary(L) for L in runs]
if len(runs) > 1:
    print("wall_ratio by launch: " + ", ".join(f"{L.label} {r:.3f}" for L, r in zip(runs, ratios)))
if user_prefix:  # the last line stays the invoking user's (srun_run.sh, the smoke test)
    print(f"wall_ratio as {user} {ratios[-1]:.3f}")
    ratios = ratios[:len(launches)]
print(f"wall_ratio {ratios[-1]:.3f}")
PY
