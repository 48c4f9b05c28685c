#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Writes scope_profiler traces byte by byte for the regions CLI tests (no
# dependency on the library): .spt v1/v2/v3 in either byte order, and .sps.
# Usage from a test: python3 regions_mktrace.py KIND OUT [options]; see main().
import struct, sys

def spt(path, rank, regions, version=2, order="<", threads=None, ext=None):
    """regions: list of (name, file, line, [(start, end[, lane]), ...]);
    ext: the extension block's sections as (tag, payload bytes)."""
    b = bytearray(b"SCOPEPRF")
    b += struct.pack(order + "iiq", version, rank, len(regions))
    for name, file, line, calls in regions:
        nb = name.encode()
        b += struct.pack(order + "i", len(nb)) + nb
        if version >= 2:
            fb = (file or "").encode()
            b += struct.pack(order + "i", len(fb)) + fb + struct.pack(order + "i", line)
        b += struct.pack(order + "q", len(calls))
        b += b"".join(struct.pack(order + "q", c[0]) for c in calls)
        b += b"".join(struct.pack(order + "q", c[1]) for c in calls)
        if version >= 3:
            b += b"".join(struct.pack(order + "i", c[2] if len(c) > 2 else 0) for c in calls)
    if version >= 3:
        threads = threads or [(1000, "main")]
        b += struct.pack(order + "i", len(threads))
        for tid, tname in threads:
            tb = tname.encode()
            b += struct.pack(order + "qi", tid, len(tb)) + tb
    if ext is not None:
        body = b"".join(struct.pack(order + "II", tag, len(p)) + p for tag, p in ext)
        b += b"SPTEXT01" + struct.pack(order + "q", len(body)) + body
    open(path, "wb").write(bytes(b))

def pstr(s, order="<"):
    sb = s.encode()
    return struct.pack(order + "i", len(sb)) + sb

def cntr(backend, events, rows, order="<", threads_without=0, dropped=0):
    """The 'CNTR' section (lib/sp_format.h): events (name, kind, reason or
    None when counted), rows (region, lane, calls, [(incl, excl) per
    counted event])."""
    p = pstr(backend, order) + struct.pack(order + "iiqq", len(events), 0, threads_without, dropped)
    for name, kind, reason in events:
        p += pstr(name, order) + struct.pack(order + "ii", kind, 0 if reason is None else 1)
        p += pstr(reason or "", order)
    p += struct.pack(order + "q", len(rows))
    for region, lane, calls, vals in rows:
        p += struct.pack(order + "iiq", region, lane, calls)
        p += b"".join(struct.pack(order + "qq", i, e) for i, e in vals)
    return (0x52544e43, p)

# Known counts of the test backend's kind: "compute" (2 ms) holds "inner"
# (0.5 ms); FLOP and DRAM bytes per region, cycles unavailable (no PMU).
def counters_trace(path, order="<"):
    ev = [("test::FLOP", 4, None), ("cycles", 2, "this machine exposes no counter for it (no PMU)"),
          ("test::DRAM_BYTES", 5, None)]
    rows = [(0, 0, 1, [(4000000000, 3000000000), (2000000000, 1500000000)]),
            (1, 0, 1, [(1000000000, 1000000000), (500000000, 500000000)]),
            (1, 1, 2, [(600000000, 600000000), (200000000, 200000000)])]
    spt(path, 0, [("compute", "k.c", 1, [(0, 2000000, 0)]),
                  ("inner", "k.c", 2, [(500000, 1000000, 0), (0, 300000, 1), (400000, 700000, 1)])],
        version=3, order=order, threads=[(7, "main"), (8, "worker")],
        ext=[cntr("test", ev, rows, order)])

def sps(path, rank, hz, ticks, regions, modules, samples, order="<"):
    b = bytearray(b"SCOPESMP") + struct.pack(order + "iiiq", 1, rank, hz, ticks)
    b += struct.pack(order + "i", len(regions))
    for r in regions:
        rb = r.encode()
        b += struct.pack(order + "i", len(rb)) + rb
    b += struct.pack(order + "i", len(modules))
    for p, load in modules:
        pb = p.encode()
        b += struct.pack(order + "i", len(pb)) + pb + struct.pack(order + "Q", load)
    b += struct.pack(order + "q", len(samples))
    for reg, mod, addr in samples:
        b += struct.pack(order + "iiQ", reg, mod, addr)
    open(path, "wb").write(bytes(b))

# A small run: main > (init, solve > (dot x3, axpy), solve > dot), imbalance on rank 1.
def small_run(d, nranks=2, version=2, order="<"):
    for r in range(nranks):
        k = 1000 * (r + 1)
        regions = [
            ("main", "main.c", 10, [(0, 100 * k)]),
            ("init", "main.c", 20, [(1 * k, 10 * k)]),
            ("solve", "solve.c", 5, [(10 * k, 60 * k), (60 * k, 90 * k)]),
            ("dot", "solve.c", 30, [(11 * k, 20 * k), (20 * k, 30 * k), (30 * k, 40 * k),
                                    (61 * k, 70 * k)]),
            ("axpy", "solve.c", 40, [(40 * k, 59 * k)]),
        ]
        spt("%s/run_rank%05d.spt" % (d, r), r, regions, version, order)

if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "small":
        small_run(out, int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    elif kind == "threads":
        spt(out, 0, [("work", "w.c", 1, [(0, 50, 0), (10, 80, 1), (20, 30, 0), (40, 60, 1)]),
                     ("inner", "w.c", 2, [(25, 28, 0), (45, 55, 1)])], version=3,
            threads=[(4242, "main"), (4243, "worker")])
    elif kind == "counters":
        counters_trace(out, sys.argv[3] if len(sys.argv) > 3 else "<")
    elif kind == "overlap":
        spt(out, 0, [("a", None, -1, [(0, 100)]), ("b", None, -1, [(50, 150)])])
    elif kind == "recursion":
        spt(out, 0, [("fib", None, -1, [(0, 100), (10, 80), (20, 50)]),
                     ("leaf", None, -1, [(30, 40)])], version=1, order=">")
    else:
        sys.exit("unknown kind " + kind)
