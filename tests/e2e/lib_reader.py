#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Independent reader of scope_profiler's .spt/.sps files, for the e2e tests.

Written from docs/formats.md with nothing but `struct`, so it checks the
library's writer against the documented layout rather than against our own
C reader. Usage as a module (read_spt/read_sps) or
`lib_reader.py FILE` to dump JSON.
"""
import json
import struct
import sys


class FormatError(ValueError):
    pass


class Cursor:
    def __init__(self, data, endian):
        self.data, self.off, self.e = data, 0, endian

    def take(self, fmt):
        size = struct.calcsize(self.e + fmt)
        if self.off + size > len(self.data):
            raise FormatError(f"truncated at offset {self.off}: need {size} bytes")
        vals = struct.unpack_from(self.e + fmt, self.data, self.off)
        self.off += size
        return vals if len(vals) > 1 else vals[0]

    def string(self):
        n = self.take("i")
        if n < 0 or self.off + n > len(self.data):
            raise FormatError(f"bad string length {n} at offset {self.off - 4}")
        s = self.data[self.off:self.off + n].decode("utf-8", "replace")
        self.off += n
        return s

    def array(self, code, n):
        if n == 0:
            return []
        return list(self.take(f"{n}{code}")) if n > 1 else [self.take(code)]


def _open(path, magic, versions):
    data = open(path, "rb").read()
    if data[:8] != magic:
        raise FormatError(f"{path}: magic {data[:8]!r}, expected {magic!r}")
    for endian in ("<", ">"):
        v = struct.unpack_from(endian + "i", data, 8)[0]
        if v in versions:
            c = Cursor(data, endian)
            c.off = 12
            return c, v
    raise FormatError(f"{path}: unknown version")


def read_spt(path):
    c, version = _open(path, b"SCOPEPRF", (1, 2, 3))
    out = {"version": version, "rank": c.take("i"), "regions": [], "endian": c.e}
    nregions = c.take("q")
    for _ in range(nregions):
        r = {"name": c.string(), "file": None, "line": -1}
        if version >= 2:
            r["file"] = c.string() or None
            r["line"] = c.take("i")
        n = c.take("q")
        r["starts"] = c.array("q", n)
        r["ends"] = c.array("q", n)
        r["lanes"] = c.array("i", n) if version >= 3 else [0] * n
        out["regions"].append(r)
    out["threads"] = []
    if version >= 3:
        for _ in range(c.take("i")):
            out["threads"].append({"tid": c.take("q"), "name": c.string()})
    out["ext"] = read_ext(c, path) if c.off != len(c.data) else None
    if c.off != len(c.data):
        raise FormatError(f"{path}: {len(c.data) - c.off} trailing bytes")
    return out


MISUSE_KEYS = ["null_handle", "end_unopened", "end_not_innermost", "discarded_inner",
               "too_deep", "left_open", "after_finalize", "finalize_again", "bad_handle",
               "no_memory", "in_signal_handler"]


def read_counters(c):
    """Section CNTR (docs/formats.md): events, then rows of per-event sums."""
    out = {"backend": c.string()}
    nev, _ = c.take("ii")
    out["threads_without"], out["dropped"] = c.take("qq")
    out["events"] = []
    for _ in range(nev):
        name, (kind, status), reason = c.string(), c.take("ii"), c.string()
        out["events"].append({"name": name, "kind": kind, "counted": status == 0,
                              "reason": reason})
    counted = [e["name"] for e in out["events"] if e["counted"]]
    out["rows"] = []
    for _ in range(c.take("q")):
        region, lane, calls = c.take("i"), c.take("i"), c.take("q")
        sums = {name: dict(zip(("inclusive", "exclusive"), c.take("qq"))) for name in counted}
        out["rows"].append({"region": region, "lane": lane, "calls": calls, "sums": sums})
    return out


def read_call_counts(c, end, path):
    """Section CCAL (docs/formats.md): a version, then each call's counts."""
    version = c.take("i")
    if version != 1:  # a newer layout: skipped, as the format says
        c.off = end
        return {"version": version, "calls": []}
    nc, n = c.take("i"), c.take("q")
    calls = []
    for _ in range(n):
        region, lane, start = c.take("i"), c.take("i"), c.take("q")
        calls.append({"region": region, "lane": lane, "start": start,
                      "values": [c.take("q") for _ in range(nc)]})
    return {"version": version, "counted": nc, "calls": calls}


def read_ext(c, path):
    """The extension block after the seed's fields (docs/formats.md)."""
    if c.data[c.off:c.off + 8] != b"SPTEXT01":
        raise FormatError(f"{path}: {len(c.data) - c.off} trailing bytes, no extension magic")
    c.off += 8
    total = c.take("q")
    if total != len(c.data) - c.off:
        raise FormatError(f"{path}: extension length {total}, {len(c.data) - c.off} bytes remain")
    ext = {"misuse": {}}
    while c.off < len(c.data):
        tag, n = c.take("I"), c.take("i")
        end = c.off + n
        if tag == 0x454d4954:  # TIME
            ext["init_ns"], ext["finalize_ns"], ext["init_unix_ns"], ext["start_ns"] = \
                c.take("qqqq")
            nl, _ = c.take("ii")
            ext["lanes"] = [dict(zip(("first_ns", "last_ns", "cpu_ns"), c.take("qqq")))
                            for _ in range(nl)]
        elif tag == 0x5553494d:  # MISU
            for _ in range(c.take("i")):
                kind, _, count, names = c.take("i"), c.take("i"), c.take("q"), c.take("i")
                regions = {}
                for _ in range(names):
                    name = c.string()
                    regions[name] = c.take("q")
                ext["misuse"][MISUSE_KEYS[kind]] = {"count": count, "regions": regions}
        elif tag == 0x52544e43:  # CNTR: counters per region and lane
            ext["counters"] = read_counters(c)
        elif tag == 0x4c414343:  # CCAL: each call's counts, sections in order
            sec = read_call_counts(c, end, path)
            ext.setdefault("call_counts", []).extend(sec["calls"])
        else:  # unknown sections are skipped, as the format says
            c.off = end
        if c.off != end:
            raise FormatError(f"{path}: section {tag:#x} ends at {c.off}, expected {end}")
    return ext


def read_sps(path):
    c, version = _open(path, b"SCOPESMP", (1, 2))
    out = {"version": version, "rank": c.take("i"), "hz": c.take("i"),
           "ticks": c.take("q")}
    out["regions"] = [c.string() for _ in range(c.take("i"))]
    out["modules"] = []
    for _ in range(c.take("i")):
        out["modules"].append({"path": c.string(), "base": c.take("Q")})
    out["samples"], out["weights"] = [], []
    for _ in range(c.take("q")):
        region, module, addr = c.take("i"), c.take("i"), c.take("Q")
        out["samples"].append((region, module, addr))
        # version 2: the timer expirations the sample stands for (si_overrun + 1)
        out["weights"].append(c.take("i") if version >= 2 else 1)
    if c.off != len(c.data):
        raise FormatError(f"{path}: {len(c.data) - c.off} trailing bytes")
    return out


def load_ranges(maps_path):
    """PT_LOAD-like ranges from a saved /proc/<pid>/maps (path -> [(lo, hi)])."""
    ranges = {}
    for line in open(maps_path):
        parts = line.split()
        if len(parts) < 6:
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        ranges.setdefault(parts[5], []).append((lo, hi))
    return ranges


if __name__ == "__main__":
    p = sys.argv[1]
    d = read_sps(p) if p.endswith(".sps") else read_spt(p)
    print(json.dumps(d, indent=1)[:20000])
