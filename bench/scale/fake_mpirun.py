#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A stand-in for Open MPI's mpirun (bench/scale/run.sh): for
`mpirun -n N nunatak rank-shim --directory D ... -- APP` it writes, instead of
launching N ranks, what N rank shims would have left in D, from a real
2-rank recording (SCALE_TEMPLATE: its collect/ directory, rank 0 sampled and
rank 1 counted):
  - ranks on nodes of 64 (n0000, n0001 ...); local rank 0 of every node
    samples (nunatak's rule above 64 ranks): rank 0's perf.data, as recorded;
  - every other rank counted: rank 1's perf-stat.csv, its task-clock varied
    per rank (one rank in 7 does 30 % more work);
  - every rank an MPI profile: the recorded functions, sites and events under
    its own rank, node and world, plus its point-to-point partners (ring and
    the next node's same local rank: a 2-D halo) and its collectives: an
    MPI_Allreduce, an MPI_Bcast from rank 0 and an MPI_Barrier on
    MPI_COMM_WORLD, an MPI_Allreduce on its node's communicator.
Then it writes time.monotonic() to SCALE_STAMP: the collection is over and
nunatak's own finishing work begins. `--version` answers as Open MPI 4.1.4;
any other command (the network ping-pong) is refused."""
import json, os, re, shutil, sys, time

argv = sys.argv[1:]
if "--version" in argv:
    print("mpirun (Open MPI) 4.1.4\n\nReport bugs to https://www.open-mpi.org/community/help/")
    sys.exit(0)
if "rank-shim" not in argv:
    print("fake mpirun: only rank shims are simulated", file=sys.stderr)
    sys.exit(1)
n = int(argv[argv.index("-n") + 1])
out = argv[argv.index("--directory") + 1]
tpl = os.environ["SCALE_TEMPLATE"]


def read(rank, name):
    with open(os.path.join(tpl, "rank-%d" % rank, name)) as f:
        return f.read()


meta = {r: json.loads(read(r, "rank.json")) for r in (0, 1)}
stat = read(1, "perf-stat.csv")
prof = read(0, "mpi-profile.txt").splitlines()
body = [l for l in prof if l.split("\t")[0] in ("function", "site", "event", "state", "library",
                                                "init_ns", "wall_ns")]
# "task-clock:u" as an ordinary user (perf_event_paranoid 2: user space only)
m = re.search(r"^([0-9.]+),msec,(task-clock(?::u)?),([0-9]+),", stat, re.M)
if not m:
    sys.exit("fake mpirun: no task-clock line in the recorded perf-stat.csv:\n" + stat)
base_ms = float(m.group(1))


def counted_csv(r):
    f = 1.3 if r % 7 == 3 else 1.0
    ms = base_ms * f
    return stat.replace(m.group(0), "%.2f,msec,%s,%d," % (ms, m.group(2), int(ms * 1e6)))


# each node's Machine, as the shims record it (machine/node_profile.h): the
# recording's, since every synthetic node is this machine
if os.path.isdir(os.path.join(tpl, "machines")):
    shutil.copytree(os.path.join(tpl, "machines"), os.path.join(out, "machines"), dirs_exist_ok=True)

for r in range(n):
    d = os.path.join(out, "rank-%d" % r)
    os.makedirs(d, exist_ok=True)
    node, local = "n%04d" % (r // 64), r % 64
    sampled = n <= 64 or r == 0 or local == 0
    j = dict(meta[0 if sampled else 1], rank=r, local_rank=local, node=node, world_size=n)
    if sampled:
        shutil.copyfile(os.path.join(tpl, "rank-0", "perf.data"), os.path.join(d, "perf.data"))
    else:
        with open(os.path.join(d, "perf-stat.csv"), "w") as f:
            f.write(counted_csv(r))
    peers = []
    for p in sorted({(r + 1) % n, (r - 1) % n, (r + 64) % n, (r - 64) % n} - {r}):
        peers.append("peer\tsend\t%d\t20\t%d\t163840" % (p, 1000000 + 37 * r))
        peers.append("peer\trecv\t%d\t20\t%d\t163840" % (p, 20000000 + 101 * (r % 13)))
    lo, hi = r - local, min(n, r - local + 64) - 1
    colls = ["ccomm\t0\t%d\t0-%d" % (n, n - 1),
             "ccomm\t1\t%d\t%s" % (hi - lo + 1, "%d-%d" % (lo, hi) if hi > lo else str(lo)),
             "coll\tMPI_Allreduce\t0\t-1\t100\t%d\t80000" % (5000000 + 71 * r),
             "coll\tMPI_Bcast\t0\t0\t10\t%d\t40960" % (2000000 + 13 * r),
             "coll\tMPI_Barrier\t0\t-1\t5\t%d\t0" % (300000 + 7 * r),
             "coll\tMPI_Allreduce\t1\t-1\t50\t%d\t400000" % (1000000 + 3 * r)]
    lines = ["nunatak-mpi\t1", "rank\t%d" % r, "world\t%d" % n, "node\t%s" % node,
             "pid\t%d" % (100000 + r)] + body + peers + colls + ["dropped\t0\t0", "end"]
    with open(os.path.join(d, "mpi-profile.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # rank.json last, as the rank shim writes it: nunatak reads a rank's
    # recordings as soon as its rank.json is there, while the others run
    with open(os.path.join(d, "rank.json"), "w") as f:
        json.dump(j, f, indent=2)
with open(os.environ["SCALE_STAMP"], "w") as f:
    f.write("%.6f\n" % time.monotonic())
