# SPDX-License-Identifier: BSD-3-Clause
"""Shared .sps check of the sampler's e2e tests (lib_sampling.sh,
lib_preload.sh): header, effective rate, every sample's module and address
against the module's PT_LOAD segments read from the ELF file itself."""
import struct, sys
from lib_reader import read_sps

def load_segments(path):
    with open(path, "rb") as f:
        h = f.read(64)
        if h[:4] != b"\x7fELF" or h[4] != 2:
            return None
        e = "<" if h[5] == 1 else ">"
        phoff, = struct.unpack_from(e + "Q", h, 32)
        phentsize, phnum = struct.unpack_from(e + "HH", h, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    segs = []
    for i in range(phnum):
        p_type, = struct.unpack_from(e + "I", ph, i * phentsize)
        if p_type == 1:  # PT_LOAD
            vaddr, = struct.unpack_from(e + "Q", ph, i * phentsize + 16)
            memsz, = struct.unpack_from(e + "Q", ph, i * phentsize + 40)
            segs.append((vaddr, vaddr + memsz))
    return segs

def check(path, exe, min_ticks, requested_hz):
    s = read_sps(path)
    assert s["version"] == 2 and s["rank"] == 0
    # expirations per CPU second of the process: at most the rate asked for
    # (each thread's timer runs on that thread's CPU time), never above it
    assert 0 < s["hz"] <= requested_hz * 1.02 + 1, s["hz"]
    assert s["ticks"] >= min_ticks, s["ticks"]
    # every expiration is in a sample's weight (none dropped here)
    assert all(w >= 1 for w in s["weights"]), s["weights"]
    assert s["ticks"] == sum(s["weights"]), (s["ticks"], sum(s["weights"]))
    mods = s["modules"]
    assert mods and mods[0]["path"] == exe, (mods[0], exe)
    segs = [load_segments(m["path"]) if m["path"].startswith("/") else None for m in mods]
    in_mod = 0
    for region, module, addr in s["samples"]:
        assert -1 <= region < len(s["regions"])
        assert -1 <= module < len(mods)
        if module >= 0:
            in_mod += 1
            if segs[module] is not None:
                off = addr - mods[module]["base"]
                assert any(lo <= off < hi for lo, hi in segs[module]), (hex(addr), mods[module])
    assert in_mod >= 0.9 * len(s["samples"]), (in_mod, len(s["samples"]))
    return s
