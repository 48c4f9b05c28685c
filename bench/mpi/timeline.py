#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the wall and CPU time of one launch went, per phase and per process.

Reads `perf script -F comm,pid,tid,time,event --show-task-events` of a
system-wide recording (`perf record -a -e cpu-clock -F HZ`, which also keeps
every process's fork, exec and exit) made around one command, and prints, from
the command's start: when the launcher started, when the first and the last
rank's application exec'd, when the first and the last ended, when the
launcher ended and when the command ended; then the CPU time of each kind of
process (each cpu-clock sample is 1/HZ s of one CPU) in three windows:
before the first rank's application starts (launch), while the ranks run, and
after the last ends (end and finish).

Only the command's own processes count (the machine may be shared): the
command's process tree, plus the trees of processes that the node daemons
given with --daemon forked during the command (a Slurm node's slurmd forks
the step daemons that fork the ranks: they are not the command's children).

usage: timeline.py HZ ROOT_PID APP_COMM [--daemon PID]... < perf-script.txt
(ROOT_PID: the command's process; APP_COMM: the ranks' application's name)
Asserts nothing: a benchmark's reading aid (bench/mpi/timeline.sh).
"""
import collections
import re
import sys

LAUNCHERS = {"srun", "slurmstepd", "mpirun", "mpiexec", "orterun", "prterun", "orted", "prted",
             "hydra_pmi_proxy", "mpiexec.hydra", "mpirun.openmpi", "mpirun.mpich", "sstat"}

REC = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+(?P<t>\d+\.\d+):\s+"
                 r"(?P<rest>.*)$")
FORK = re.compile(r"PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)")
EXIT = re.compile(r"PERF_RECORD_EXIT\((\d+):(\d+)\)")
EXEC = re.compile(r"PERF_RECORD_COMM exec: (.*):(\d+)/(\d+)")


def parse(lines):
    forks, execs, exits, samples = {}, [], {}, []
    for line in lines:
        m = REC.match(line)
        if not m:
            continue
        t, rest = float(m["t"]), m["rest"]
        if t == 0.0:
            continue  # synthesized before the recording: not the command's
        if rest.startswith("PERF_RECORD_FORK"):
            f = FORK.search(rest)
            if f and f[1] == f[2]:  # a new process, not a thread
                forks[int(f[1])] = (int(f[3]), t)
        elif rest.startswith("PERF_RECORD_EXIT"):
            x = EXIT.search(rest)
            if x and x[1] == x[2]:
                exits[int(x[1])] = t
        elif rest.startswith("PERF_RECORD_COMM exec"):
            x = EXEC.search(rest)
            if x:
                execs.append((t, int(x[2]), x[1]))
        elif "cpu-clock" in rest:
            samples.append((t, int(m["pid"]), m["comm"]))
    return forks, execs, exits, samples


def main():
    hz, root, app = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    daemons = {int(sys.argv[i + 1]) for i, a in enumerate(sys.argv) if a == "--daemon"}
    forks, execs, exits, samples = parse(sys.stdin)
    mine = [t for t, pid, _ in execs if pid == root]
    if not mine:  # a recording that lost it: said, not a failure of the benchmark
        print(f"timeline: process {root} exec'd nothing in the recording")
        return
    t0 = mine[-1]  # the command's own exec (after the shell that wrote its pid)
    kids = collections.defaultdict(list)
    for c, (p, t) in forks.items():
        kids[p].append(c)
    ours = set()
    todo = [root] + [c for c, (p, t) in forks.items() if p in daemons and t >= t0]
    while todo:
        p = todo.pop()
        if p not in ours:
            ours.add(p)
            todo.extend(kids[p])
    end = max([t for t, pid, _ in samples if pid == root] + [exits.get(root, t0)])
    app_exec = sorted(t for t, pid, comm in execs if comm == app and pid in ours)
    app_pids = {pid for t, pid, comm in execs if comm == app and pid in ours}
    app_exit = sorted(exits[p] for p in app_pids if p in exits)
    launcher = sorted((t, pid) for t, pid, comm in execs
                      if comm in LAUNCHERS and pid in ours and forks.get(pid, (root,))[0] == root)
    if not launcher and any(pid == root and comm in LAUNCHERS for t, pid, comm in execs):
        launcher = [(t0, root)]  # the bare launch: the command is the launcher
    print("wall from the command's start (s), in order:")
    # the launch of the application (a network probe's launch comes first)
    lt, lpid = launcher[-1] if launcher else (float("nan"), 0)
    print(f"  launcher exec {lt - t0:.3f}")
    # the rank shims: nunatak exec'd by a launcher's or step daemon's process;
    # perf: exec'd below them
    comm_of = {}
    for t, pid, comm in sorted(execs):
        comm_of.setdefault(pid, comm)
    shims = {pid: t for t, pid, comm in execs if comm == "nunatak" and pid in ours and
             pid != root and comm_of.get(forks.get(pid, (0,))[0]) in LAUNCHERS}
    perfs = {pid: t for t, pid, comm in execs if comm == "perf" and pid in ours}

    def span(what, times):
        times = sorted(times)
        if times:
            print(f"  {what}: first {times[0] - t0:.3f}, last {times[-1] - t0:.3f} "
                  f"({len(times)})")
    span("rank shim exec", shims.values())
    first_exit = app_exit[0] if app_exit else float("inf")
    records = [p for p, t in perfs.items() if t < first_exit]  # perf record (or stat)
    span("perf record exec", [perfs[p] for p in records])
    span(f"{app} exec", app_exec)
    span(f"{app} exit", app_exit)
    span("perf record exit", [exits[p] for p in records if p in exits])
    span("other perf processes (after the ranks)", [t for p, t in perfs.items() if t >= first_exit])
    span("rank shim exit", [exits[p] for p in shims if p in exits])
    print(f"  launcher exit {exits[lpid] - t0 if lpid in exits else float('nan'):.3f}")
    print(f"  end {end - t0:.3f}")
    # windows: before the first rank's application, while ranks run, after
    w1 = app_exec[0] if app_exec else end
    w2 = app_exit[-1] if app_exit else end
    cpu = collections.defaultdict(lambda: [0, 0, 0])
    for t, pid, comm in samples:
        if pid not in ours:
            continue
        if pid == root:
            kind = "nunatak (the command)" if comm == "nunatak" else f"the command ({comm})"
        elif comm == app:
            kind = f"{app} (the ranks)"
        elif comm in LAUNCHERS:
            kind = "launcher and step daemons"
        elif comm in ("perf", "perf-exec"):
            kind = "perf"
        elif comm in ("nunatak", "env"):
            kind = "rank shim (nunatak rank-shim, fg-exec, env)"
        else:
            kind = comm
        cpu[kind][0 if t < w1 else 1 if t <= w2 else 2] += 1
    print(f"CPU (s; cpu-clock at {hz:g} Hz)      before the ranks  during    after    total")
    for kind, (a, b, c) in sorted(cpu.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {kind[:34]:34} {a / hz:9.3f} {b / hz:9.3f} {c / hz:8.3f} {(a + b + c) / hz:8.3f}")
    tot = [sum(v[i] for v in cpu.values()) / hz for i in range(3)]
    print(f"  {'all':34} {tot[0]:9.3f} {tot[1]:9.3f} {tot[2]:8.3f} {sum(tot):8.3f}")
    # each rank's perf record, from its exec to its application's: the wait
    # a rank has before it starts where it has a core of its own (here the
    # ranks share the cores, and wait for each other's too)
    starts = []
    for p in records:
        kids_app = [c for c in kids[p] if c in app_pids]
        begin = perfs[p]
        until = min((t for t, pid, comm in execs if pid in kids_app and comm == app),
                    default=None)
        if until is not None:
            starts.append(sum(1 for t, pid, comm in samples
                              if pid == p and begin <= t < until) / hz)
    if starts:
        starts.sort()
        print(f"perf record's CPU before its rank's application, per rank (s): min "
              f"{starts[0]:.3f}, median {starts[len(starts) // 2]:.3f}, max {starts[-1]:.3f}")


if __name__ == "__main__":
    main()
