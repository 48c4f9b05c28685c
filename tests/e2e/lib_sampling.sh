#!/usr/bin/env bash
# libscope_profiler sampler: .sps of the linked heat example, checked by an independent reader against the ELF segments
set -eu
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 2; }
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_DISABLE || true
check() { PYTHONPATH="$S/tests/e2e" python3 - "$@"; }

# Checks an .sps: header, effective rate, every sample's module and address
# against the module's PT_LOAD segments read from the ELF file itself.
cat >"$tmp/check_sps.py" <<'PY'
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

def check(path, exe, min_ticks):
    s = read_sps(path)
    assert s["version"] == 1 and s["rank"] == 0
    assert 0 < s["hz"] <= 300, s["hz"]          # effective rate, capped at the tick
    assert s["ticks"] >= min_ticks, s["ticks"]
    assert s["ticks"] == len(s["samples"]), (s["ticks"], len(s["samples"]))
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
PY

echo "== heat with SCOPE_PROFILER_SAMPLE_HZ=250 (linked library)"
size="512 1500"   # ~0.3 s of CPU: ~60 ticks
[ "${NUNATAK_SANITIZE:-0}" = 1 ] && size="256 300"  # ASan code is ~5x slower
SCOPE_PROFILER_SAMPLE_HZ=250 SP_LOG_LEVEL=info SCOPE_PROFILER_PREFIX="$tmp/heat" \
  "$B/examples/c/example_heat" $size 1 >/dev/null 2>"$tmp/heat.log"
cat "$tmp/heat.log"
grep -Eq "sampling: requested 250 Hz, effective [0-9.]+ Hz" "$tmp/heat.log"
check "$tmp/heat_rank00000.sps" "$tmp/heat_rank00000.spt" "$(readlink -f "$B/examples/c/example_heat")" <<'PY'
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from check_sps import check
from lib_reader import read_spt
s = check(sys.argv[1], sys.argv[3], 20)
t = read_spt(sys.argv[2])
assert s["regions"] == [r["name"] for r in t["regions"]], (s["regions"],)
hot = s["regions"].index("sweep")
n_hot = sum(1 for r, _, _ in s["samples"] if r == hot)
# the Jacobi sweep is where heat spends its CPU time
assert n_hot >= 0.5 * len(s["samples"]), (n_hot, len(s["samples"]))
print("heat .sps ok: %d Hz effective, %d ticks, %d in sweep" % (s["hz"], s["ticks"], n_hot))
PY

echo "all lib sampling checks passed (preloading: tests/e2e/lib_preload.sh)"
