#!/bin/bash
# rank-shim and nunatak run, as root, run perf record in a mount namespace of its own where the boot's kallsyms table (a few lines, tool cache) stands for /proc/kallsyms, so perf 6.1 no longer has the kernel format it four times (issue 27); the application, back in the caller's namespace, sees exactly what a bare run sees (mount namespace, mounts, working directory, caps, ids, stderr, descriptors), perf.data keeps the kernel map at the real _text, and a forged or stale table is never used
set -eu
[ "$(id -u)" = 0 ] || { echo "skip: needs root (perf reads /proc/kallsyms four times as root only)"; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "skip: the table is used on x86_64 only"; exit 2; }
command -v perf >/dev/null || { echo "skip: perf not installed (scripts/deps.sh test)"; exit 2; }
v=$(perf --version 2>/dev/null | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p')
[ "$v" = 6.1 ] || { echo "skip: perf $v, not 6.1 (the version whose kallsyms readers were checked)"; exit 2; }
[ "$(readlink /proc/self/root)" = / ] ||
	{ echo "skip: a chroot (perf keeps reading /proc/kallsyms there: setns would leave it)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
perf record -q -o probe.data -e task-clock -- true >/dev/null 2>&1 ||
	{ echo "skip: perf record cannot run here"; exit 2; }
grep -m1 -E ' _text$' /proc/kallsyms >table.try
unshare -m sh -c "mount --make-rslave / && mount --bind '$tmp/table.try' /proc/kallsyms" 2>/dev/null ||
	{ echo "skip: no private mount namespace with a bind over /proc/kallsyms here (a container?)"; exit 2; }
text=$(grep -m1 -E ' _text$' /proc/kallsyms | cut -d' ' -f1)
[ -n "$text" ] && [ -n "${text//0/}" ] ||
	{ echo "skip: the kernel hides its addresses even from root (kernel.kptr_restrict=2): perf reads nothing"; exit 2; }

# What the application sees, and what perf (alive meanwhile) sees: perf is
# the application's parent under rank-shim (fg-exec execs it in place), its
# grandparent under nunatak run (fg-exec relays it as its child).
cat >facts.sh <<'SH'
#!/bin/sh
{
	echo "ns $(readlink /proc/self/ns/mnt)"
	echo "cwd $(pwd -P)"
	grep -E '^(Cap|Uid|Gid|Groups|NoNewPrivs|Seccomp)' /proc/self/status
	echo "mountinfo $(md5sum </proc/self/mountinfo | cut -c1-32)"
	echo "kallsyms $(wc -l </proc/kallsyms)"
	echo "stderr $(readlink /proc/self/fd/2)"
	# the open descriptors (the glob's own, closed by now, reads as nothing)
	for f in /proc/self/fd/*; do t=$(readlink "$f") && echo "fd ${f##*/} $t"; done
} >"$1"
p=$PPID
[ "$(cat /proc/$p/comm)" = perf ] || p=$(cut -d' ' -f4 /proc/$p/stat)
{
	echo "ns $(readlink /proc/$p/ns/mnt)"
	echo "comm $(cat /proc/$p/comm)"
	echo "kallsyms $(wc -l <"/proc/$p/root/proc/kallsyms")"
} >"$1.perf"
SH
chmod +x facts.sh
./facts.sh bare.txt 2>err-bare.txt

rank() { # rank NAME: one rank (rank 0 of 1) under rank-shim with the real perf
	mkdir "collect-$1"
	env XDG_CACHE_HOME="$tmp/cache" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 \
		OMPI_COMM_WORLD_LOCAL_RANK=0 "$NUNATAK" rank-shim --directory "$tmp/collect-$1" \
		--perf perf -- ./facts.sh "$1.txt" 2>"err-$1.txt" </dev/null ||
		{ cat "err-$1.txt"; echo "FAIL: rank $1 exited $?"; exit 1; }
	[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["role"])' \
		"collect-$1/rank-0/rank.json")" = sampler ] ||
		{ cat "collect-$1/rank-0/rank.json"; echo "FAIL: rank $1 was not sampled by perf"; exit 1; }
}
check() { # check NAME [DATA]: the application saw what a bare run sees; perf read the table
	# perf 6.1 leaks one eventfd into the application, with or without the table
	diff <(grep -v '^fd \|^stderr ' bare.txt) <(grep -v '^fd \|^stderr ' "$1.txt") ||
		{ echo "FAIL: the application's environment under the shim ($1) is not the bare one"; exit 1; }
	grep -qx "stderr $tmp/err-$1.txt" "$1.txt" ||
		{ grep stderr "$1.txt"; echo "FAIL: the application's stderr is not the rank's ($1)"; exit 1; }
	# beyond 0-2 (the rank's stdin is /dev/null here, its stdout a pipe)
	extra=$(comm -13 <(grep '^fd ' bare.txt | sort) <(grep '^fd ' "$1.txt" | sort) |
		grep -v '^fd [012] ' |
		grep -v 'anon_inode:\[eventfd\]' || true)
	[ -z "$extra" ] || { echo "$extra"; echo "FAIL: descriptors leaked into the application ($1)"; exit 1; }
	grep -qx 'comm perf' "$1.txt.perf" || { cat "$1.txt.perf"; echo "FAIL: the parent is not perf"; exit 1; }
	! grep -qxF "$(head -1 bare.txt)" "$1.txt.perf" ||
		{ cat "$1.txt.perf"; echo "FAIL: perf ran in the rank's own mount namespace ($1)"; exit 1; }
	n=$(sed -n 's/^kallsyms //p' "$1.txt.perf")
	[ "$n" -ge 2 ] && [ "$n" -le 10 ] ||
		{ cat "$1.txt.perf"; echo "FAIL: perf's /proc/kallsyms has $n lines, not the table's few"; exit 1; }
	# a rank says nothing on stderr (nunatak run does: its console)
	[ -n "${2:-}" ] || [ ! -s "err-$1.txt" ] ||
		{ cat "err-$1.txt"; echo "FAIL: the rank wrote to stderr ($1)"; exit 1; }
	# the kernel map perf synthesized: the real _text, as without the table
	perf report -D -i "${2:-collect-$1/rank-0/perf.data}" 2>/dev/null |
		grep -q "PERF_RECORD_MMAP -1/0: \[0x$text(0x[0-9a-f]*) @ 0x$text\]: x \[kernel.kallsyms\]_text" ||
		{ echo "FAIL: perf.data has no kernel map at _text 0x$text ($1)"; exit 1; }
}

rank first
check first
table=$(ls "$tmp"/cache/nunatak/perf-kallsyms/*.kallsyms)
[ "$(stat -c %a "$table")" = 600 ] || { echo "FAIL: the table is mode $(stat -c %a "$table"), not 600"; exit 1; }
grep -qx "$(grep -m1 -E ' _text$' /proc/kallsyms)" "$table" ||
	{ cat "$table"; echo "FAIL: the table's _text is not the kernel's"; exit 1; }
rank second
check second

# A table whose _text is not the kernel's (forged, or from before a
# reboot under the same boot id): never used, made again from the kernel.
sed -i "s/^$text /ffffffffa0000000 /" "$table"
rank forged
check forged
grep -qx "$(grep -m1 -E ' _text$' /proc/kallsyms)" "$table" ||
	{ cat "$table"; echo "FAIL: the forged table was not made again"; exit 1; }
# nunatak run (one process, the relay between perf and the application)
env XDG_CACHE_HOME="$tmp/cache" "$NUNATAK" run -q -o run -- ./facts.sh run.txt 2>err-run.txt </dev/null ||
	{ cat err-run.txt; echo "FAIL: nunatak run exited $?"; exit 1; }
check run run/collect/perf.data
echo "ok: perf read the boot's table in its own namespace (rank-shim, nunatak run); the application saw the bare environment; perf.data's kernel map at _text"
