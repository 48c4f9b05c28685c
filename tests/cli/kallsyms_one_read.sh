#!/bin/bash
# a first Run of a boot, as root, has the kernel format /proc/kallsyms once, not twice (issue 27): perf's table (collect/perf_kallsyms.c) and nunatak's kernel table (attrib/kernel.c) come from one read, whichever of the Run's read-ahead and perf's start takes the boot lock first; three rank shims starting at once on one node read it once between them, not once each; a later Run reads only the few lines that check the tables against the running kernel; both tables are 0600 in the cache
set -eu
[ "$(id -u)" = 0 ] || { echo "skip: needs root (perf's table is made and used as root only)"; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "skip: perf's table is used on x86_64 only"; exit 2; }
command -v perf >/dev/null || { echo "skip: perf not installed (scripts/deps.sh test)"; exit 2; }
v=$(perf --version 2>/dev/null | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p')
[ "$v" = 6.1 ] || { echo "skip: perf $v, not 6.1 (the version whose kallsyms readers were checked)"; exit 2; }
command -v strace >/dev/null || { echo "skip: strace not installed (scripts/deps.sh test)"; exit 2; }
[ "$(readlink /proc/self/root)" = / ] ||
	{ echo "skip: a chroot (perf keeps reading /proc/kallsyms there)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
strace -f -qq -o /dev/null true 2>/dev/null || { echo "skip: strace cannot trace here (ptrace refused)"; exit 2; }
perf record -q -o probe.data -e task-clock -- true >/dev/null 2>&1 ||
	{ echo "skip: perf record cannot run here"; exit 2; }
grep -m1 -E ' _text$' /proc/kallsyms >table.try
unshare -m sh -c "mount --make-rslave / && mount --bind '$tmp/table.try' /proc/kallsyms" 2>/dev/null ||
	{ echo "skip: no private mount namespace with a bind over /proc/kallsyms here (perf reads the file itself)"; exit 2; }
text=$(grep -m1 -E ' _text$' /proc/kallsyms | cut -d' ' -f1)
[ -n "$text" ] && [ -n "${text//0/}" ] ||
	{ echo "skip: the kernel hides its addresses even from root (kernel.kptr_restrict=2): no table is made"; exit 2; }
size=$(wc -c </proc/kallsyms)
export NUNATAK_SITE_CONFIG=/dev/null NUNATAK_NO_CALIBRATE=1
# under the sanitizers' build: LeakSanitizer cannot run under ptrace (strace);
# the leaks of these paths are checked by the tests that run them untraced
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# reads PREFIX...: the bytes read from /proc/kallsyms by every thread that
# strace -ff -y traced into PREFIX.<tid> (perf's reads of its table show
# the table's own path, the kernel's file its name)
reads() {
	python3 - "$@" <<'PY'
import glob, re, sys
total = 0
for prefix in sys.argv[1:]:
    for f in glob.glob(glob.escape(prefix) + '.*'):
        for line in open(f, errors='replace'):
            m = re.match(r'read\(\d+</proc/kallsyms>, .*\) += (\d+)$', line)
            if m:
                total += int(m.group(1))
print(total)
PY
}
# within WHAT BYTES LO HI: LO*size <= BYTES <= HI*size (fractions of the file)
within() {
	python3 -c 'import sys; b, s, lo, hi = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]); sys.exit(0 if lo * s <= b <= hi * s else 1)' "$2" "$size" "$3" "$4" ||
		{ echo "FAIL: $1: $2 bytes read from /proc/kallsyms, expected between $3 and $4 times its $size bytes"; exit 1; }
}
tables() { # tables CACHE: both tables of this boot there, root's, 0600
	local k p
	k=$(find "$1/nunatak/kallsyms" -name '*.bin' 2>/dev/null | head -1)
	p=$(find "$1/nunatak/perf-kallsyms" -name '*.kallsyms' 2>/dev/null | head -1)
	[ -n "$k" ] && [ -n "$p" ] || { find "$1" -type f; echo "FAIL: both tables should be in the cache"; exit 1; }
	[ "$(stat -c '%u %a' "$k")" = "0 600" ] && [ "$(stat -c '%u %a' "$p")" = "0 600" ] ||
		{ stat -c '%n %u %a' "$k" "$p"; echo "FAIL: tables not root's 0600"; exit 1; }
	grep -qE ' _text$' "$p" && grep -qE ' _etext$' "$p" ||
		{ cat "$p"; echo "FAIL: perf's table lacks _text or _etext"; exit 1; }
}

# A first Run (both caches empty), then a later one.
run() { # run NAME
	XDG_CACHE_HOME="$tmp/cache-run" strace -ff -qq -y -e trace=read -o "$tmp/st-$1" \
		"$NUNATAK" run -o "$tmp/run-$1" -- true >"out-$1.txt" 2>&1 </dev/null ||
		{ cat "out-$1.txt"; echo "FAIL: nunatak run ($1) exited $?"; exit 1; }
}
run first
tables "$tmp/cache-run"
within "first Run" "$(reads "$tmp/st-first")" 0.9 1.5
run later
within "later Run" "$(reads "$tmp/st-later")" 0 0.05

# Three ranks of one node, starting at once with an empty cache.
for r in 0 1 2; do
	mkdir "collect-$r"
	env XDG_CACHE_HOME="$tmp/cache-ranks" OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=3 \
		OMPI_COMM_WORLD_LOCAL_RANK=$r strace -ff -qq -y -e trace=read -o "$tmp/st-rank$r" \
		"$NUNATAK" rank-shim --directory "$tmp/collect-$r" --perf perf -- true \
		>"out-rank$r.txt" 2>&1 </dev/null &
	pids[r]=$!
done
for r in 0 1 2; do
	wait "${pids[r]}" || { cat "out-rank$r.txt"; echo "FAIL: rank $r exited $?"; exit 1; }
	[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["role"])' \
		"collect-$r/rank-$r/rank.json")" = sampler ] ||
		{ cat "collect-$r/rank-$r/rank.json"; echo "FAIL: rank $r was not sampled by perf"; exit 1; }
done
tables "$tmp/cache-ranks"
within "three ranks" "$(reads "$tmp/st-rank0" "$tmp/st-rank1" "$tmp/st-rank2")" 0.9 1.5
echo "ok: first Run, later Run and three ranks read /proc/kallsyms once at most ($size bytes)"
