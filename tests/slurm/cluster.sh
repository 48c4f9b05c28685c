#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real two-node Slurm cluster on this one machine, for the Slurm tests
# (tests/e2e/slurm_*.sh). Debian's slurm-wlm (22.05) and munge
# (scripts/deps.sh test): munged, slurmctld and two slurmd (-N n1, -N n2),
# each slurmd under `unshare --uts --mount` with its own hostname and its own
# per-node directory bound over DIR/node (spool, logs, and the PMIx client
# directory, PMIxCliTmpDirBase: two nodes' step daemons must not share it)
# and its own /dev/shm, as a real node has: Open MPI's shared-memory
# transport names its segments /dev/shm/vader_segment.<host>.<job>.<rank>,
# the job from Slurm's job id, and every test cluster has nodes n1, n2 and
# job ids from 1, so two clusters at once on one machine (tests of several
# checkouts) mapped each other's segments and their ranks crashed in
# mca_btl_vader_poll_handle_frag (SIGSEGV, bare srun as under nunatak).
# Everything listens on 127.0.0.1, on ports free when the cluster starts.
# NUNATAK_SLURM_N2_CPUS=LIST (e.g. 0) starts n2's slurmd under `taskset -c
# LIST`: its tasks inherit that CPU set, so n2 is another Machine than n1
# (heterogeneous nodes: the Machine identity holds the allocation).
#
# Usage: cluster.sh start DIR   starts it; DIR (empty or absent) holds it all,
#                               DIR/env the variables a client needs
#                               (SLURM_CONF); exits 0 when both nodes are idle,
#                               2 after a "skip: <reason>" line when the
#                               cluster cannot come up here (not root, no
#                               namespaces, a package or a daemon missing),
#                               with the daemons' logs
#        cluster.sh stop DIR    stops what start started (by the process ids
#                               it recorded) and removes DIR; always exits 0
# A test runs `trap '"$cluster" stop "$dir"' EXIT` before start. Every
# daemon also runs under `timeout`, so one a killed test leaves behind dies
# on its own; start first stops the clusters of tests that no longer run.
set -u
TIMEOUT_UP=${NUNATAK_SLURM_TIMEOUT:-240} # seconds for the nodes to be idle
LIFETIME=3600                            # a daemon's longest life

say_skip() {
	local f
	for f in "$dir"/ctld/slurmctld.log "$dir"/node-n1/slurmd.log "$dir"/node-n2/slurmd.log \
		"$dir"/munge/munged.log "$dir"/*/*.out; do
		[ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
	done
	stop_cluster >/dev/null 2>&1
	echo "skip: the Slurm cluster cannot run here: $*"
	exit 2
}

# A recorded process id is still ours (not reused): it carries this
# cluster's SLURM_CONF, exported before any daemon started.
ours() {
	{ tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$dir/slurm.conf"
}

# Kills the processes start recorded, by id (each checked to still be ours).
stop_cluster() {
	[ -f "$dir/pids" ] || return 0
	local pid sig
	# the daemons under each `timeout` we started, should it die first
	while read -r pid; do
		[ -n "$pid" ] && ours "$pid" && ps -o pid= --ppid "$pid" 2>/dev/null
	done <"$dir/pids" >"$dir/pids.children"
	cat "$dir/pids.children" >>"$dir/pids"
	for sig in TERM KILL; do
		while read -r pid; do
			[ -n "$pid" ] && ours "$pid" && kill -"$sig" "$pid" 2>/dev/null
		done <"$dir/pids"
		for _ in $(seq 50); do
			local alive=0
			while read -r pid; do
				[ -n "$pid" ] && ours "$pid" && alive=1
			done <"$dir/pids"
			[ $alive = 0 ] && break
			sleep 0.2
		done
	done
	rm -f "$dir/pids"
}

# Clusters of earlier tests whose shell is gone (killed by a timeout before
# its trap ran): stop them, remove their state.
stop_stale() {
	local d owner
	for d in "${TMPDIR:-/tmp}"/nunatak-slurm.*; do
		[ -f "$d/owner" ] || continue
		owner=$(cat "$d/owner")
		[ -n "$owner" ] && kill -0 "$owner" 2>/dev/null && continue
		(dir=$d; stop_cluster)
		rm -rf "$d"
	done
}

# Three ports free now, below the kernel's ephemeral range where it can: a
# port from that range (a bind to port 0) may, before the daemons bind it,
# go to any socket of another test running meanwhile (an mpirun, a browser,
# a connect), and the cluster would not start. Below it only a bind to that
# very port can take it.
free_ports() {
	python3 - <<'PY'
import random, socket
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError):
    low = 0
socks = []
for _ in range(2000):
    if len(socks) == 3:
        break
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", random.randrange(10000, low) if low > 11000 else 0))
    except OSError:
        s.close()
        continue
    socks.append(s)
if len(socks) < 3:
    raise SystemExit(1)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

write_conf() {
	# two CPUs a node (config_overrides: whatever this machine has), so
	# `srun -N 2 -n 4` places n1 n1 n2 n2
	local host=$1 p_ctl=$2 p1=$3 p2=$4 cpus=2
	cat >"$dir/slurm.conf" <<EOF
ClusterName=nunatak
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p_ctl
SlurmdPort=$p1
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/ctld/state
SlurmctldPidFile=$dir/ctld/slurmctld.pid
SlurmctldLogFile=$dir/ctld/slurmctld.log
SlurmdSpoolDir=$dir/node/spool
SlurmdPidFile=$dir/node/slurmd.pid
SlurmdLogFile=$dir/node/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=300
SlurmdTimeout=600
MessageTimeout=60
InactiveLimit=0
KillWait=10
MinJobAge=300
SlurmctldDebug=info
SlurmdDebug=info
NodeName=n1 NodeHostname=n1 NodeAddr=127.0.0.1 Port=$p1 CPUs=$cpus State=UNKNOWN
NodeName=n2 NodeHostname=n2 NodeAddr=127.0.0.1 Port=$p2 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	printf 'PMIxCliTmpDirBase=%s/node/pmix\n' "$dir" >"$dir/mpi.conf"
	printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf" >"$dir/env"
}

start_munge() {
	mkdir -p "$dir/munge"
	chmod 700 "$dir/munge"
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$dir/munge/munge.key"
	timeout -k 10 "$LIFETIME" munged --foreground --force --key-file="$dir/munge/munge.key" \
		--socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
		--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
		</dev/null >>"$dir/munge/munged.out" 2>&1 &
	echo $! >>"$dir/pids"
	for _ in $(seq 300); do
		[ -S "$dir/munge/munge.socket" ] && return 0
		kill -0 "$!" 2>/dev/null || break
		sleep 0.2
	done
	say_skip "munged did not start"
}

start_node() {
	local n=$1 pin=()
	[ "$n" = n2 ] && [ -n "${NUNATAK_SLURM_N2_CPUS:-}" ] && pin=(taskset -c "$NUNATAK_SLURM_N2_CPUS")
	mkdir -p "$dir/node-$n/spool" "$dir/node-$n/pmix" "$dir/node"
	timeout -k 10 "$LIFETIME" "${pin[@]}" unshare --uts --mount --propagation private /bin/sh -c '
		hostname "$1" && mount --bind "$2/node-$1" "$2/node" || exit 1
		mount -t tmpfs -o mode=1777,size=512m "nunatak-$1-shm" /dev/shm ||
			echo "cluster.sh: no private /dev/shm on $1 (mount refused): shared with the machine"
		exec slurmd -D -N "$1"' \
		sh "$n" "$dir" </dev/null >>"$dir/node-$n/slurmd.out" 2>&1 &
	echo $! >>"$dir/pids"
}

# Both nodes idle, within TIMEOUT_UP seconds; the daemons must stay alive.
wait_idle() {
	local t0=$SECONDS state
	while [ $((SECONDS - t0)) -lt "$TIMEOUT_UP" ]; do
		while read -r pid; do
			kill -0 "$pid" 2>/dev/null || say_skip "a daemon exited during start-up (pid $pid)"
		done <"$dir/pids"
		state=$(timeout 30 sinfo -h -N -o '%N %t' 2>/dev/null | sort | tr '\n' ' ')
		[ "$state" = "n1 idle n2 idle " ] && return 0
		sleep 1
	done
	say_skip "the nodes were not idle after ${TIMEOUT_UP}s (sinfo: ${state:-no answer})"
}

start_cluster() {
	[ "$(id -u)" = 0 ] || { echo "skip: the Slurm cluster needs root (slurmd, namespaces)"; exit 2; }
	local t
	if [ -n "${NUNATAK_SLURM_N2_CPUS:-}" ]; then
		command -v taskset >/dev/null || { echo "skip: taskset is not installed (util-linux)"; exit 2; }
		taskset -c "$NUNATAK_SLURM_N2_CPUS" true 2>/dev/null ||
			{ echo "skip: CPUs $NUNATAK_SLURM_N2_CPUS are not usable here (taskset refused)"; exit 2; }
	fi
	for t in munged slurmctld slurmd srun sbatch salloc sinfo scontrol unshare python3 timeout; do
		command -v "$t" >/dev/null || { echo "skip: $t is not installed (scripts/deps.sh test)"; exit 2; }
	done
	unshare --uts --mount true 2>/dev/null ||
		{ echo "skip: no UTS and mount namespaces here (unshare --uts --mount refused)"; exit 2; }
	stop_stale
	mkdir -p "$dir/ctld/state"
	echo "$PPID" >"$dir/owner"
	: >"$dir/pids"
	local ports
	ports=$(free_ports) || say_skip "no free port on 127.0.0.1"
	# shellcheck disable=SC2086
	write_conf "$(hostname -s)" $ports
	export SLURM_CONF="$dir/slurm.conf"
	start_munge
	timeout -k 10 "$LIFETIME" slurmctld -D -i </dev/null >>"$dir/ctld/slurmctld.out" 2>&1 &
	echo $! >>"$dir/pids"
	start_node n1
	start_node n2
	wait_idle
	echo "Slurm cluster up: n1, n2 on 127.0.0.1 (SLURM_CONF=$SLURM_CONF)"
}

[ $# = 2 ] || { echo "usage: $0 start|stop DIR" >&2; exit 1; }
dir=$2
case $1 in
start)
	mkdir -p "$dir" || { echo "skip: cannot create $dir"; exit 2; }
	dir=$(cd "$dir" && pwd)
	case $dir in *[[:space:]]*)
		echo "skip: slurm.conf cannot hold the path $dir (a space in it): set TMPDIR"; exit 2 ;;
	esac
	start_cluster ;;
stop)
	[ -d "$dir" ] || exit 0
	stop_cluster
	rm -rf "$dir"
	exit 0 ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 1 ;;
esac
