#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The cost of the off-CPU collection (issue 23) on a program that blocks about
# 1000 times a second (blocker.c: 0.5 ms of work, 0.5 ms asleep, in turn):
# nunatak's perf record options without and with the context-switch records
# (--switch-events) and, as root, a sample with its call stack at every
# switch (-e context-switches/period=1,call-graph=fp/), in interleaved pairs
# so that a shared machine's drifts hit both sides. Prints per variant the
# median over PAIRS of the wall-time ratio and of the CPU-time ratio (the
# application's and perf's, RUSAGE_CHILDREN) against the base options
# (target: <= 1.05 in wall time). Asserts nothing.
# Env: BLOCKER (binary), BLOCKS (default 3000, ~3 s), PAIRS (default 7).
set -eu
BLOCKER=$(realpath "$BLOCKER")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
exec python3 - "$BLOCKER" "${BLOCKS:-3000}" "${PAIRS:-7}" <<'PY'
import os, resource, statistics, subprocess, sys, time
blocker, blocks, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
BASE = ["perf", "record", "--freq", "997", "-e", "task-clock", "--call-graph", "fp",
        "-k", "CLOCK_MONOTONIC", "--no-bpf-event", "--no-buildid-cache", "--quiet",
        "--output", "perf.data"]
SWITCH = BASE + ["--switch-events"]
STACKS = BASE + ["-e", "context-switches/period=1,call-graph=fp/", "--switch-events"]
variants = [("switch events", SWITCH)]
if os.geteuid() == 0:
    variants.append(("switch events + their stacks", STACKS))

def timed(cmd):
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    p = subprocess.run(cmd + ["--", blocker, blocks], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=False)
    t1, r1 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("perf failed: %s" % p.stderr.decode(errors="replace")[-300:])
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t1 - t0, cpu, os.path.getsize("perf.data")

print("blocker: %s blocks (~1000/s), %d interleaved pairs per variant" % (blocks, pairs))
for name, cmd in variants:
    walls, cpus, sizes = [], [], []
    for i in range(pairs):
        order = [(BASE, 0), (cmd, 1)] if i % 2 == 0 else [(cmd, 1), (BASE, 0)]
        got = {}
        for c, k in order:
            got[k] = timed(c)
        walls.append(got[1][0] / got[0][0])
        cpus.append(got[1][1] / got[0][1])
        sizes.append(got[1][2] / max(1, got[0][2]))
    print("%-38s wall x%.3f  CPU x%.3f  perf.data x%.2f (medians)" %
          (name, statistics.median(walls), statistics.median(cpus), statistics.median(sizes)))
PY
