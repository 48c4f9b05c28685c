#!/usr/bin/env bash
# libscope_profiler preloaded into an uninstrumented program (thread created after start) and through a wrapper shell: .sps checked by an independent reader against the ELF segments
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

echo "== preload sampler on an uninstrumented program (thread created after start)"
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
  echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
cc=$(command -v cc || command -v gcc || true)
[ -n "$cc" ] || { echo "skip: no C compiler for the uninstrumented program"; exit 2; }
"$cc" -O1 -g -pthread "$S/tests/e2e/lib_spin.c" -o "$tmp/spin"
LD_PRELOAD="$B/lib/libscope_profiler.so" SCOPE_PROFILER_SAMPLE_HZ=1000 \
  SCOPE_PROFILER_PREFIX="$tmp/spin" "$tmp/spin" >"$tmp/spin.out"
grep -q "spin: done" "$tmp/spin.out"   # exit 0: no EINTR from nanosleep or read
[ ! -e "$tmp/spin_rank00000.spt" ]     # no region API used: samples only
check "$tmp/spin_rank00000.sps" "$tmp/spin" <<'PY'
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from check_sps import check
s = check(sys.argv[1], sys.argv[2], 20)  # the late thread's 0.4 s of CPU (80 ticks quiet; 37 seen at load 16)
assert s["regions"] == [] and all(r == -1 for r, _, _ in s["samples"])
assert any(m["path"].endswith("libscope_profiler.so") or "libscope_profiler" in m["path"]
           for m in s["modules"]), s["modules"]
print("preload .sps ok: %d Hz effective, %d ticks, %d modules" % (s["hz"], s["ticks"], len(s["modules"])))
PY
echo "== preload through a wrapper shell: the busiest process's samples are kept"
LD_PRELOAD="$B/lib/libscope_profiler.so" SCOPE_PROFILER_SAMPLE_HZ=1000 \
  SCOPE_PROFILER_PREFIX="$tmp/wrap" sh -c "'$tmp/spin' >/dev/null; true"
check "$tmp/wrap_rank00000.sps" "$tmp/spin" <<'PY'
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from lib_reader import read_sps
s = read_sps(sys.argv[1])
assert s["ticks"] >= 20, s["ticks"]   # spin's, not the shell's (a shell has ~0)
assert s["modules"][0]["path"] == sys.argv[2], s["modules"][0]
print("wrapper ok: %d ticks from %s" % (s["ticks"], s["modules"][0]["path"]))
PY
echo "all preload checks passed"
