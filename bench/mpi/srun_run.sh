#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `nunatak run -- srun -N 2 -n 4 APP` against the bare `srun -N 2 -n 4 APP`
# across the two nodes of the test cluster (tests/slurm/cluster.sh: a real
# Slurm cluster of two nodes on this machine, started here and always
# stopped; it needs root and namespaces), in interleaved pairs after a
# warm-up Run: mpi_run.sh with LAUNCH="srun -N 2 -n RANKS --mpi=pmix" (APP
# is LAMMPS' LJ melt where `lmp` is installed, else our mpi_imbalance
# example). Last line `wall_ratio X`
# (issue 27's target: <= 1.05). Asserts nothing; exits 77 after a
# "skip: <reason>" line when the cluster cannot run here.
# The two nodes share this machine's 2 cores: 4 ranks and their 4 perf
# processes oversubscribe them, which a real node (a core per rank) does not.
# So the same pairs also run `srun -N 2 -n 2` (one rank per node, a core
# each; same problem, same cores), interleaved with the 4-rank ones, and a
# line before the last says what share of the 4-rank excess that
# oversubscription is. RANKS=2 runs the one-per-node launch only.
# TIMELINE=1 first records one Run of each side system-wide (mpi_run.sh):
# per phase and per kind of process, where the wall and CPU time went.
# NETPROBE=1 measures the network Ceilings' cache instead: the ping-pong's
# cost on a first Run and none on the second (netprobe_cost.py).
# AS_USER=<user> (mpi_run.sh) measures each launch a second time as that
# user, in the same pairs: the cluster's directory and munge socket are
# opened to it (traversable, the socket is the cluster's own), srun runs as
# the user and the nodes' daemons start its ranks as the user.
# usage: srun_run.sh NUNATAK [FALLBACK_APP]
# env: as mpi_run.sh (PAIRS, STEPS, LATTICE, CALIBRATE, APP_UNITS, AS_USER);
# RANKS (default 4).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../tests/slurm/cluster.sh"
[ "${NUNATAK_SANITIZE:-0}" = 1 ] && { echo "skip: a sanitizer build (the cluster's benchmark runs in the gcc pass)"; exit 77; }
command -v srun >/dev/null || { echo "skip: srun is not installed (scripts/deps.sh test)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # harmless when not root
# The two test nodes share this machine's cores: 4 ranks on 2 cores, which
# srun does not tell Open MPI (mpirun --oversubscribe does). Ranks that
# busy-poll for a descheduled partner made the bare run itself vary from
# 2 to 13 s at load 11; yielding when idle, as mpirun sets for an
# oversubscribed node, keeps both sides comparable.
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
cluster_dir=$(mktemp -d -t nunatak-slurm.XXXXXX)
cg=""
trap 'bash "$cluster" stop "$cluster_dir"; [ -z "$cg" ] || rmdir "$cg" 2>/dev/null || true' EXIT
rc=0
bash "$cluster" start "$cluster_dir" </dev/null || rc=$?
[ "$rc" = 2 ] && exit 77 # cluster.sh said "skip: <why>"
[ "$rc" = 0 ] || { echo "the cluster did not start (exit $rc)"; exit 1; }
# shellcheck disable=SC1091
. "$cluster_dir/env"
export SLURM_CONF
# AS_USER: srun as that user reaches the cluster's munge socket and config
[ -z "${AS_USER:-}" ] || chmod 711 "$cluster_dir" "$cluster_dir/munge"
# The ranks are the cluster's (its step daemons fork them), not this
# script's children: their CPU time is read from a cgroup that this
# cluster's daemons (those carrying its SLURM_CONF) are moved into, and
# that the step daemons and ranks they fork inherit (cgroup v1 cpuacct, or
# v2). Without one, mpi_run.sh says the ranks are not in its CPU figure.
if [ -w /sys/fs/cgroup/cpuacct ] && mkdir "/sys/fs/cgroup/cpuacct/nunatak-bench.$$" 2>/dev/null; then
	cg=/sys/fs/cgroup/cpuacct/nunatak-bench.$$ NODE_CPU=$cg/cpuacct.usage
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && mkdir "/sys/fs/cgroup/nunatak-bench.$$" 2>/dev/null; then
	cg=/sys/fs/cgroup/nunatak-bench.$$ NODE_CPU=$cg/cpu.stat
fi
if [ -n "$cg" ]; then
	for p in /proc/[0-9]*; do
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" &&
			echo "${p#/proc/}" >"$cg/cgroup.procs" 2>/dev/null
	done
	export NODE_CPU
	# the cgroup empties when the cluster stops: removed then (trap)
	trap 'bash "$cluster" stop "$cluster_dir"; for _ in 1 2 3 4 5; do rmdir "$cg" 2>/dev/null && break; sleep 1; done' EXIT
fi
# the slurmd of each node (they fork the step daemons, which fork the
# ranks): mpi_run.sh's TIMELINE=1 counts what they fork as the launch's
NODE_DAEMONS=""
for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = slurmd ] &&
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" &&
		NODE_DAEMONS+=" ${p#/proc/}"
done
export NODE_DAEMONS
# PMIx for Open MPI (lmp, and our example as Debian's mpicc builds it), PMI-2
# for an MPICH build of it (tests/e2e/slurm_srun.sh runs both)
app=$(command -v lmp || echo "${2:-}")
plugin=pmix
[ -n "$app" ] && ldd "$app" 2>/dev/null | grep -q libmpich && plugin=pmi2
ranks=${RANKS:-4}
LAUNCHES="srun -N 2 -n 2 --mpi=$plugin|one rank per node"
[ "$ranks" = 2 ] ||
	LAUNCHES+=";srun -N 2 -n $ranks --mpi=$plugin|$((ranks / 2)) ranks per node"
export LAUNCHES
# NETPROBE=1: what the network Ceilings' cache saves instead (netprobe_cost.py)
[ "${NETPROBE:-0}" = 1 ] && exec python3 "$here/netprobe_cost.py" "$1" "${2:-$app}" "$plugin"
set -o pipefail
# mpi_run.sh's output as it comes (a shell loop: awk would buffer it); its
# last line (wall_ratio of the last launch) held back until the
# oversubscription's share is printed before it
bash "$here/mpi_run.sh" "$@" </dev/null | {
	last="" by="" outside=""
	while IFS= read -r line; do
		case $line in
		"wall_ratio by launch: "*) by=${line#wall_ratio by launch: } ;;
		"outside LAMMPS' loop (medians): "*) outside+="$line;" ;;
		"wall_ratio as "*) printf '%s\n' "$line"; continue ;;
		"wall_ratio "[0-9]*) last=$line; continue ;;
		esac
		printf '%s\n' "$line"
	done
	[ -z "$by" ] || python3 -c '
import sys
# the launches in order: one rank per node, two; then the same as AS_USER
by = [x.rsplit(" ", 1) for x in sys.argv[1].split(", ")]
o = [[float(w) for w in x.replace(",", " ").split() if w.replace(".", "").isdigit()]
     for x in sys.argv[2].split(";") if x]
user = [i for i, (label, _) in enumerate(by) if " as " in label]
for idx in ([i for i in range(len(by)) if i not in user], user):
    if len(idx) < 2:
        continue
    who = by[idx[0]][0].partition(" as ")[2]
    tag = f" (as {who})" if who else ""
    one, two = float(by[idx[0]][1]), float(by[idx[-1]][1])
    line = (f"oversubscription{tag}: one rank per node (a core per rank) {one:.3f}x bare, two ranks "
            f"per node (4 ranks and their 4 perf processes on this machine\x27s 2 cores) {two:.3f}x")
    if 1 <= one <= two and two > 1:
        line += (f": {(two - one) / (two - 1) * 100:.0f} % of the 4-rank excess is the sharing "
                 "of cores, which a node with a core per rank does not do")
    else:
        line += ": the two do not order as expected, the noise of this machine\x27s load is larger"
    print(line)
    # the same outside the application'"'"'s loop (LAMMPS): start-up, end and
    # finish, which the load'"'"'s noise on the loop does not reach
    if len(o) == len(by) and all(len(o[i]) == 2 for i in idx):
        one, two = o[idx[0]][1] - o[idx[0]][0], o[idx[-1]][1] - o[idx[-1]][0]
        line = (f"outside the loop{tag}, nunatak adds {one:+.3f} s with one rank per node and "
                f"{two:+.3f} s with two")
        if 0 < one <= two:
            line += f": {(two - one) / two * 100:.0f} % of the second is the sharing of cores"
        print(line)' "$by" "$outside"
	[ -z "$last" ] || printf '%s\n' "$last"
}
