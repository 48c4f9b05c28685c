#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What perf costs per context switch, where the 4-rank srun LAMMPS Run
# (srun_run.sh) loses most of its time: Open MPI ranks that yield while they
# wait switch ~10^4-10^5 times a second on an oversubscribed node, and each
# rank runs under its own perf record (the rank shim). Two yielders
# (yielder.c) pinned on one CPU switch to each other at every sched_yield;
# their own CPU time per context switch (getrusage: the kernel's work at the
# switch is theirs) is measured, in interleaved rounds (the order rotated),
# for:
#   bare            the yielders alone
#   counting        each under `perf stat -e task-clock` (its event switched
#                   out and in, no sampling)
#   rank perf       each under its own perf record with the rank shim's
#                   options for `--offcpu switches`: task-clock sampled at
#                   FREQ (997) Hz, --switch-events, -k CLOCK_MONOTONIC
#   no switch recs  the same without --switch-events
#   slow timer      the rank perf sampling every 50 ms (-c): its hrtimer is
#                   then seldom the CPU's next timer, which the kernel
#                   reprograms (on a VM, an exit per write) when the event is
#                   switched out and in; for comparison only
#   rank perf auto  as root where perf takes it: the rank shim's default
#                   (--offcpu auto) for MPI ranks, which adds the scheduler's
#                   tracepoint for the stacks of blocking switch-outs
#                   (sched:sched_switch, --filter 'prev_state != 0'; a yield
#                   is filtered out, the tracepoint still fires); left out,
#                   said so, where perf refuses it
#   one perf        the rank perf's options, one perf around both yielders
#                   (forked by one shell: inherited events, whose contexts
#                   the kernel swaps at a switch instead of switching each
#                   event): what one perf per node would cost
# and prints the extra per switch of each against bare, then the parts
# (sampling timer, switch records, event switching, per-rank perf against
# one), and on its last line `per_switch_us X`: the rank perf's extra CPU
# per context switch. Asserts nothing; exits 77 after a "skip: <reason>"
# line when perf cannot record here.
# env: ROUNDS (default 5), YIELDS (per yielder and run, default 100000),
# FREQ (997).
set -eu
yielder=$(realpath "${1:?usage: switch_cost.sh YIELDER}")
command -v perf >/dev/null || { echo "skip: perf is not installed (scripts/deps.sh test)"; exit 77; }
command -v taskset >/dev/null || { echo "skip: taskset is not installed (util-linux)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! perf record -q -e task-clock --switch-events -o probe.data -- true >/dev/null 2>probe.err; then
	echo "skip: perf record refused here: $(tail -n 1 probe.err)"
	exit 77
fi
exec python3 - "$yielder" "${ROUNDS:-5}" "${YIELDS:-100000}" "${FREQ:-997}" <<'PY'
import os, resource, statistics, subprocess, sys
yielder, rounds, yields, freq = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cpu = str(max(os.sched_getaffinity(0)))
REC = ["perf", "record", "-q", "--no-bpf-event", "-N", "-B", "-e", "task-clock"]
TAIL = ["-k", "CLOCK_MONOTONIC", "--no-buildid-cache", "--quiet"]
RANK = REC + ["--freq", freq, "--switch-events"] + TAIL
AUTO = ["perf", "record", "-q", "--no-bpf-event", "-N", "-B", "-e", f"task-clock/freq={freq}/",
        "-e", "sched:sched_switch/call-graph=fp/", "--filter", "prev_state != 0",
        "--switch-events"] + TAIL
VARIANTS = [
    ("bare", None),
    ("counting", ["perf", "stat", "-x,", "-e", "task-clock", "-o", "/dev/null"]),
    ("rank perf", RANK),
    ("no switch recs", REC + ["--freq", freq] + TAIL),
    ("slow timer", REC + ["-c", "50000000", "--switch-events"] + TAIL),
    ("rank perf auto", AUTO),
    ("one perf", "one"),
]

def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def run(pre):
    """(the yielders' own CPU s, their context switches, everything's CPU s)"""
    c0 = children_cpu()
    pin = ["taskset", "-c", cpu]
    err = open("err.txt", "w+")  # perf's and the yielders' stderr (a pipe could fill)
    io = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
    if pre == "one":
        # both yielders share the shell's pipes: two "ready" lines, a byte
        # each (an asynchronous list's stdin is /dev/null unless redirected)
        sh = f'exec 3<&0; "$1" {yields} <&3 & "$1" {yields} <&3 & wait'
        procs = [subprocess.Popen(pin + RANK + ["-o", "one.data", "--", "sh", "-c", sh, "sh",
                                                yielder], **io)]
        ready = [procs[0].stdout.readline(), procs[0].stdout.readline()]
    else:
        procs = []
        for j in range(2):
            cmd = pin + ((pre + (["-o", f"y{j}.data"] if pre[1] == "record" else []) + ["--"])
                         if pre else []) + [yielder, yields]
            procs.append(subprocess.Popen(cmd, **io))
        ready = [p.stdout.readline() for p in procs]
    go = "xx" if pre == "one" else "x"
    for p in procs:
        try:
            p.stdin.write(go)
            p.stdin.close()
        except BrokenPipeError:
            pass
    outs = [p.stdout.read() for p in procs]  # "cpu_s switches", at each one's end
    rcs = [p.wait() for p in procs]
    err.seek(0)
    errs = err.read()
    err.close()
    vals = [l.split() for o in outs for l in o.splitlines() if l.strip() and l != "ready"]
    if any(rcs) or len(vals) != 2 or ready.count("ready\n") != 2:
        sys.exit(f"a run failed (exit {rcs}): {errs[-300:]}")
    own = sum(float(v[0]) for v in vals)
    return own, sum(int(v[1]) for v in vals), children_cpu() - c0

# the tracepoint needs root (or CAP_PERFMON) and a readable tracefs
if subprocess.run(AUTO + ["-o", "auto.data", "--", "true"], stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode != 0:
    print("rank perf auto: left out, perf refuses the scheduler's tracepoint here "
          "(not root, or no tracefs)")
    VARIANTS = [v for v in VARIANTS if v[0] != "rank perf auto"]
res = {name: [] for name, _ in VARIANTS}
for r in range(rounds):
    order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
    for name, pre in order:
        own, switches, everything = run(pre)
        res[name].append((own / max(1, switches) * 1e6, everything / max(1, switches) * 1e6))
load = open("/proc/loadavg").read().split()[0]
med = {k: statistics.median(x[0] for x in v) for k, v in res.items()}
allmed = {k: statistics.median(x[1] for x in v) for k, v in res.items()}
print(f"two yielders on CPU {cpu}, {yields} sched_yield each, {rounds} interleaved rounds, "
      f"task-clock at {freq} Hz (load {load} at the end)")
for name, _ in VARIANTS:
    print(f"  {name:15s} {med[name]:7.3f} us of the yielders' own CPU per context switch "
          f"({med[name] - med['bare']:+.3f} against bare); everything's CPU "
          f"{allmed[name]:.3f} us (perf's own included)")
print("parts of the rank perf's extra per switch (medians' differences):")
print(f"  the sampling timer at {freq} Hz (rank perf - slow timer): "
      f"{med['rank perf'] - med['slow timer']:+.3f} us")
print(f"  the switch records (rank perf - no switch recs): "
      f"{med['rank perf'] - med['no switch recs']:+.3f} us")
print(f"  an event switched out and in (counting - bare): {med['counting'] - med['bare']:+.3f} us")
if "rank perf auto" in med:
    print(f"  the scheduler's tracepoint of the default (rank perf auto - rank perf): "
          f"{med['rank perf auto'] - med['rank perf']:+.3f} us")
print(f"  one perf per rank instead of one for both (rank perf - one perf): "
      f"{med['rank perf'] - med['one perf']:+.3f} us")
print(f"per_switch_us {med['rank perf'] - med['bare']:.3f}")
PY
