#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What the network Ceilings' cache saves (issue 27), run by srun_run.sh with
NETPROBE=1 inside its test cluster: for `srun -N 2 -n 2` and `srun -N 2 -n 4`
(the same two nodes), interleaved in PAIRS rounds, one Run with the network
cache emptied (the ping-pong runs: the first Run on a node set) then one Run
after it (the cache answers), each `nunatak run` of a short application.
Prints per Run the manifest's network_probe (wall), the CPU time of the Run
(this process's children and the cluster's cgroup, NODE_CPU, where the ranks
run) and the load; then the medians: the ping-pong's wall, and the CPU the
first Run took beyond the second (the probe's CPU, within the noise of the
application's). The Runs use a copy of the user's cache (XDG_CACHE_HOME,
probes and Machine kept) so the user's own network cache is left alone.
Last line: `netprobe first_run_s X second_run_s Y`.
usage: netprobe_cost.py NUNATAK APP PLUGIN   (env PAIRS, APP_UNITS)"""
import json, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

nunatak, app, plugin = sys.argv[1:4]
pairs = int(os.environ.get("PAIRS", "3"))
units = os.environ.get("APP_UNITS", "5")
node_cpu = os.environ.get("NODE_CPU", "")
src = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "nunatak")
work = tempfile.mkdtemp(prefix="nunatak-netprobe.")
cache = os.path.join(work, "cache")
if os.path.isdir(src):
    shutil.copytree(src, os.path.join(cache, "nunatak"), symlinks=True,
                    ignore=shutil.ignore_patterns("network"))
env = dict(os.environ, XDG_CACHE_HOME=cache)

def cpu_now():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = ru.ru_utime + ru.ru_stime
    if node_cpu.endswith("cpuacct.usage"):
        t += int(open(node_cpu).read()) / 1e9
    elif node_cpu.endswith("cpu.stat"):
        t += int(re.search(r"^usage_usec (\d+)", open(node_cpu).read(), re.M)[1]) / 1e6
    return t

def one(launch, tag):
    out = os.path.join(work, "run")
    c0, t0 = cpu_now(), time.monotonic()
    r = subprocess.run([nunatak, "run", "-q", "-o", out, "--"] + launch + [app, units], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, cpu = time.monotonic() - t0, cpu_now() - c0
    cost = json.load(open(os.path.join(out, "manifest.json"))).get("cost", {})
    shutil.rmtree(out, ignore_errors=True)
    net = cost.get("network_probe", {}).get("value") or 0.0
    how = cost.get("network_ceilings", "?")
    load = open("/proc/loadavg").read().split()[0]
    print(f"  {tag}: exit {r.returncode}, network Ceilings {how}, network_probe {net:.3f} s, "
          f"Run {wall:.3f} s wall, {cpu:.3f} s CPU; load {load}", flush=True)
    return net, cpu, how

rows = {}
try:
    for i in range(pairs):
        for ranks in (2, 4):
            launch = ["srun", "-N", "2", "-n", str(ranks), f"--mpi={plugin}"]
            shutil.rmtree(os.path.join(cache, "nunatak", "network"), ignore_errors=True)
            print(f"round {i}, {' '.join(launch)}:")
            first = one(launch, "first Run (empty network cache)")
            second = one(launch, "second Run")
            rows.setdefault(ranks, []).append((first, second))
finally:
    shutil.rmtree(work, ignore_errors=True)
med = statistics.median
for ranks, r in rows.items():
    print(f"srun -N 2 -n {ranks} (medians of {len(r)}): ping-pong {med(x[0][0] for x in r):.3f} s "
          f"on the first Run, {med(x[1][0] for x in r):.3f} s on the second "
          f"({sum(x[1][2] == 'cached' for x in r)}/{len(r)} cached); CPU of the first Run beyond "
          f"the second {med(x[0][1] - x[1][1] for x in r):+.3f} s")
allr = [x for r in rows.values() for x in r]
print(f"netprobe first_run_s {med(x[0][0] for x in allr):.3f} second_run_s "
      f"{med(x[1][0] for x in allr):.3f}")
