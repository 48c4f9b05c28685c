#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The cost of the off-CPU collection through the whole `nunatak run` (issue
# 23: <= 5 % more on a program that blocks 1000 times a second), on
# blocker.c (0.5 ms of work, 0.5 ms asleep, in turn). In every round, in a
# rotated order so that a shared machine's drifts hit every variant alike:
#   bare       the program alone
#   process    nunatak run --offcpu process   (no context-switch records)
#   switches   nunatak run --offcpu switches  (records, no call stacks)
#   auto       nunatak run                    (records + a stack per switch
#                                              where the machine allows it)
# Per run: the program's own wall time and CPU time (it writes them itself:
# CLOCK_MONOTONIC around its loop, getrusage user + system, and system
# alone, where a switch's stack costs), the CPU time of everything (nunatak,
# perf, the program: RUSAGE_CHILDREN) and nunatak's `finish` (post-processing
# wall time, from the manifest's cost). Prints the medians and the median of
# the per-round ratios against bare and against `switches` (the stacks'
# own cost), with the load average before and after. Asserts nothing.
# Env: NUNATAK, BLOCKER (binaries), BLOCKS (default 3000, ~3 s unloaded),
# ROUNDS (default 7), VARIANTS (default "bare process switches auto");
# RT=1 (root): the program (not nunatak nor perf) runs under `chrt -f 1`,
# so that on a loaded machine its wall time is not its wait for a CPU at
# every wake-up, which then swamps the collection's cost.
set -eu
NUNATAK=$(realpath "$NUNATAK")
BLOCKER=$(realpath "$BLOCKER")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
exec python3 - "$NUNATAK" "$BLOCKER" "${BLOCKS:-3000}" "${ROUNDS:-7}" \
	"${VARIANTS:-bare process switches auto}" "${RT:-0}" <<'PY'
import json, os, resource, shutil, statistics, subprocess, sys, time
nunatak, blocker, blocks, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
names = sys.argv[5].split()
rt = []
if sys.argv[6] == "1":
    if os.geteuid() == 0 and shutil.which("chrt"):
        rt = [shutil.which("chrt"), "-f", "1"]
    else:
        print("RT=1 ignored: chrt -f needs root and chrt")
NUN = [nunatak, "run", "--no-calibrate", "--no-source", "-q", "-o", "run"]
CMD = {"bare": [], "process": NUN + ["--offcpu", "process", "--"],
       "switches": NUN + ["--offcpu", "switches", "--"], "auto": NUN + ["--"]}
env = dict(os.environ, NUNATAK_NO_CALIBRATE="1")

def load():
    return open("/proc/loadavg").read().split()[0]

def one(name):
    shutil.rmtree("run", ignore_errors=True)
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    p = subprocess.run(CMD[name] + rt + [blocker, blocks, os.path.abspath("own.txt")], env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=False)
    t1, r1 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("%s failed (%d): %s" % (name, p.returncode, p.stderr.decode(errors="replace")[-600:]))
    wall, cpu, sys_ = map(float, open("own.txt").read().split())
    total = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    finish, mech = 0.0, "-"
    if name != "bare":
        m = json.load(open("run/manifest.json"))
        finish = (m.get("cost") or {}).get("finish", {}).get("value") or 0.0
        degr = [d["message"] for d in m.get("degradations", []) if d["name"] == "offcpu-unattributed"]
        mech = "stacks" if not degr else degr[0][:60]
    return {"app_wall": wall, "app_cpu": cpu, "app_sys": sys_, "all_cpu": total,
            "all_wall": t1 - t0, "finish": finish, "mech": mech}

print("offcpu_run: blocker %s blocks (~1000/s)%s, %d rounds, variants %s; load %s at the start"
      % (blocks, " under chrt -f 1" if rt else "", rounds, " ".join(names), load()))
got = {n: [] for n in names}
for r in range(rounds):
    k = r % len(names)
    for n in names[k:] + names[:k]:
        got[n].append(one(n))
print("load %s at the end (1-minute average; 2 cores here means ~2 is full)" % load())
keys = ["app_wall", "app_cpu", "app_sys", "all_cpu", "all_wall", "finish"]
print("%-9s" % "median" + "".join("%10s" % k for k in keys) + "  (seconds)")
for n in names:
    print("%-9s" % n + "".join("%10.4f" % statistics.median(x[k] for x in got[n]) for k in keys))
for base in ("bare", "switches"):
    if base not in names:
        continue
    for n in names:
        if n == base:
            continue
        ratio = lambda k: statistics.median(a[k] / b[k] for a, b in zip(got[n], got[base]) if b[k] > 0)
        print("%-8s / %-8s app wall x%.3f  app CPU x%.3f  all CPU x%.3f  all wall x%.3f"
              % (n, base, ratio("app_wall"), ratio("app_cpu"), ratio("all_cpu"), ratio("all_wall")))
mechs = {n: sorted(set(x["mech"] for x in got[n])) for n in names if n != "bare"}
print("off-CPU mechanism per variant: %s" % "; ".join("%s: %s" % (n, ", ".join(m)) for n, m in mechs.items()))
PY
