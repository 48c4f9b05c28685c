#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Start-up cost of nunatak: wall time, best of N, of `nunatak --version`, of
`regions inspect` on a one-rank .spt and on the same rank as .h5 (the first
touch of HDF5 loads nunatak-hdf5.so and libhdf5's ~30 libraries), against
/bin/true measured in the same run, interleaved so the machine's drifts hit
every side. Also prints how many shared objects each maps (LD_DEBUG=files).
Asserts nothing: the suite runs it with --runs 3 so it cannot rot.

Usage: bench_startup.py --nunatak PATH [--runs N]   (N defaults to 40)
"""
import argparse, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "cli"))
import regions_mktrace  # noqa: E402  (the tests' trace writer, no library needed)


def wall(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("bench_startup: %s exited %d" % (" ".join(cmd), r.returncode))
    return t


def objects(cmd, env):
    e = dict(env, LD_DEBUG="files")
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e, text=True)
    return len({w for line in r.stderr.splitlines() for w in line.split()
                if w.startswith("file=")})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nunatak", required=True)
    ap.add_argument("--runs", type=int, default=40)
    a = ap.parse_args()
    env = dict(os.environ, NUNATAK_SITE_CONFIG="/dev/null", NO_COLOR="1")
    with tempfile.TemporaryDirectory() as d:
        spt = os.path.join(d, "b_rank00000.spt")
        regions_mktrace.spt(spt, 0, [("main", "main.c", 1, [(0, 1000)]),
                                     ("solve", "main.c", 2, [(10, 500), (500, 900)])])
        h5 = os.path.join(d, "b.h5")
        cases = [("/bin/true", ["/bin/true"]),
                 ("nunatak --version", [a.nunatak, "--version"]),
                 ("regions inspect .spt", [a.nunatak, "regions", "inspect", spt])]
        conv = subprocess.run([a.nunatak, "regions", "convert", spt, "-o", h5],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        if conv.returncode == 0:
            cases.append(("regions inspect .h5", [a.nunatak, "regions", "inspect", h5]))
        else:
            print("(no .h5 case: %s)" % conv.stderr.strip())
        best = {name: float("inf") for name, _ in cases}
        for _ in range(a.runs):
            for name, cmd in cases:
                best[name] = min(best[name], wall(cmd, env))
        base = best["/bin/true"]
        print("start-up, wall best of %d (/bin/true measured in the same run)" % a.runs)
        for name, cmd in cases:
            print("  %-22s %7.2f ms  %5.1fx /bin/true  %+6.2f ms  %3d shared objects" %
                  (name, best[name] * 1e3, best[name] / base, (best[name] - base) * 1e3,
                   objects(cmd, env)))


if __name__ == "__main__":
    main()
