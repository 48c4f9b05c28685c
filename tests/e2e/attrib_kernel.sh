#!/bin/bash
# nunatak run with real perf on a getppid() loop: kernel samples are named at function level from /proc/kallsyms ([kernel.kallsyms], offsets from _text), totals kept
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v sqlite3 >/dev/null || python3 -c 'import sqlite3' || { echo "skip: no sqlite3"; exit 2; }
TEXT=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms 2>/dev/null || true)
case "$TEXT" in
"" | 0000000000000000)
	echo "skip: /proc/kallsyms shows no addresses here (not root, or kernel.kptr_restrict)"
	exit 2 ;;
esac
cc -O1 -o "$WORK/sys_loop" "$NUNATAK_SOURCE_DIR/tests/fixtures/attrib/sys_loop.c"
cd "$WORK"
"$NUNATAK" run -o "$WORK/run" --json -- ./sys_loop 3000000 > out.json 2> err.txt || fail "run"
if grep -q "kernel-symbols-unavailable" err.txt; then fail "kernel symbols declared unavailable although readable"; fi
cat > "$WORK/check.py" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""select h.name, h.resolution_level, h.offset, sum(m.sample_count), sum(m.value)
    from hotspots h join measurements m on m.hotspot = h.id
    where h.module = '[kernel.kallsyms]' and m.counter = 'task-clock' group by h.id""").fetchall()
total = db.execute("select sum(sample_count) from measurements where counter = 'task-clock'"
                   " and hotspot is not null").fetchone()[0]
kall = {}
text = None
for line in open("/proc/kallsyms"):
    a, t, n = line.split()[:3]
    if n == "_text":
        text = int(a, 16)
    if len(line.split()) == 3 and t in "tTwW":
        # one name, many functions: static ones of one name in several files
        # (lruvec_stat_mod_folio.constprop.0 eleven times on 6.18)
        kall.setdefault(n, set()).add(int(a, 16))
named = [r for r in rows if r[0]]
assert named, rows
ksamples = sum(r[3] for r in rows)
# a syscall loop: most samples are in the kernel, and nearly all of them named
assert ksamples > 0.3 * total, (ksamples, total)
assert sum(r[3] for r in named) > 0.9 * ksamples, rows
for name, level, off, _, _ in named:
    assert level == "function", (name, level)
    # the offset is relative to _text, never an absolute kernel address
    assert off < 1 << 40, hex(off)
    assert name in kall and text + off in kall[name], (name, hex(off))
names = {r[0] for r in named}
assert names & {"__x64_sys_getppid", "__ia32_sys_getppid", "do_syscall_64", "__task_pid_nr_ns",
                "entry_SYSCALL_64", "syscall_exit_to_user_mode"}, names
PY
python3 "$WORK/check.py" "$WORK/run/pivot.sqlite" || fail "kernel Hotspots not named"
# The summary names a kernel function among the Hotspots.
grep -Eq "^[^ ]+ +(do_syscall_64|__x64_sys_getppid|__ia32_sys_getppid|__task_pid_nr_ns|entry_SYSCALL_64[a-z_]*|syscall_exit_to_user_mode) \(function\)" err.txt ||
	fail "no kernel function in the summary"
echo "ok: kernel Hotspots named"
# The core kernel's symbols are cached per boot (attrib/kernel.c): the second
# Run names its kernel samples from the cache, exactly as from /proc/kallsyms.
boot=$(cat /proc/sys/kernel/random/boot_id)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/nunatak/kallsyms/$boot.bin"
[ -s "$cache" ] || fail "no kallsyms cache at $cache"
# nunatak's compact form (attrib/kallsyms.c, kallsyms__encode), read here on
# its own: every cached symbol is one /proc/kallsyms lists at that address.
python3 - "$cache" <<'PY' || fail "the kallsyms cache differs from /proc/kallsyms"
import sys
core = {}
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        core.setdefault(int(f[0], 16), set()).add(f[2])
b = open(sys.argv[1], "rb").read()
magic = b"nunatak kallsyms 1\n"
assert b.startswith(magic), b[:32]
p = len(magic)
text, flags = int.from_bytes(b[p:p + 8], "little"), b[p + 16]
p += 17
def varint():
    global p
    v = shift = 0
    while True:
        c = b[p]
        p += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v
assert flags & 1 and "_text" in core.get(text, ()), hex(text)
n, syms, prev = varint(), [], 0
while p < len(b):
    prev += varint()
    pfx = b[p]
    p += 1
    gap = varint() if pfx else 0
    end = b.index(b"\0", p)
    name = b[p:end].decode()
    p = end + 1
    if pfx:
        syms.append((prev - gap, "__pfx_" + name))
    syms.append((prev, name))
assert len(syms) == n and n > 1000, (len(syms), n)
assert all(a < b for (a, _), (b, _) in zip(syms, syms[1:]))
for a, name in syms:
    assert name in core.get(a, ()), (hex(a), name)
PY
"$NUNATAK" run -v -o "$WORK/run2" --json -- ./sys_loop 3000000 > out2.json 2> err2.txt ||
	fail "second run"
python3 "$WORK/check.py" "$WORK/run2/pivot.sqlite" || fail "kernel Hotspots not named from the cache"
# read on a thread while perf started, not after the application (stage_collect.c)
grep -q "kernel symbols: the table read as perf started" err2.txt ||
	fail "the kernel's table was not read ahead"
echo "ok: kernel Hotspots named from the per-boot cache, read as perf started"
