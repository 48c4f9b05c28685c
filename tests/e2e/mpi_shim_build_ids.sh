#!/bin/bash
# rank-shim with the real perf: perf record runs with -B (no build-id pass after the application: 0.07 s of perf's CPU per LAMMPS rank, issue 27) and the shim lists the build-id of every module the recording maps (perf-buildid-list.txt), each the one its ELF note holds, the running kernel's too; the application's output and status pass through, once
set -eu
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
command -v readelf >/dev/null || { echo "skip: readelf (binutils) is not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
cd "$tmp"
perf record -q -e task-clock -o probe.data -- true >/dev/null 2>&1 ||
	{ echo "skip: perf cannot record here (perf_event_paranoid or a container)"; exit 2; }
set +e
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	"$NUNATAK" rank-shim --directory "$tmp/collect" -- \
	sh -c "echo ran >> '$tmp/runs'; i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done; echo out; exit 4" \
	> out.txt 2> err.txt </dev/null
rc=$?
set -e
[ "$rc" -eq 4 ] || { cat err.txt; echo "FAIL: rank exit $rc, expected 4 (the application's)"; exit 1; }
[ "$(cat out.txt)" = out ] && [ ! -s err.txt ] || { echo "FAIL: the application's output changed"; cat out.txt err.txt; exit 1; }
[ "$(wc -l < runs)" -eq 1 ] || { echo "FAIL: the application ran $(wc -l < runs) times"; exit 1; }
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["role"] == "sampler" and r["sampled"], r' \
	collect/rank-0/rank.json || { echo "FAIL: rank 0 was not sampled by perf record"; exit 1; }
list=collect/rank-0/perf-buildid-list.txt
[ -s "$list" ] || { echo "FAIL: the shim wrote no build-id list"; ls -la collect/rank-0; exit 1; }
# perf wrote no build-id table of its own: its pass was skipped (-B)
perf report --header-only -i collect/rank-0/perf.data 2>/dev/null | grep "missing features" | grep -qw BUILD_ID ||
	{ echo "FAIL: perf.data holds a build-id table: perf record ran its build-id pass"; exit 1; }
# every module listed is mapped code; sh's and libc's ids are their ELF notes'
checked=0
while read -r id path; do
	case "$path" in
	/*) want=$(readelf -n "$path" 2>/dev/null | sed -n 's/.*Build ID: //p' | head -1)
	    [ "$id" = "$want" ] || { echo "FAIL: $path listed as $id, its note says '$want'"; exit 1; }
	    checked=$((checked + 1)) ;;
	"[kernel.kallsyms]") ;;
	*) echo "FAIL: unexpected entry '$id $path'"; exit 1 ;;
	esac
done < "$list"
sh_path=$(readlink -f "$(command -v sh)")
grep -q " $sh_path\$" "$list" || { echo "FAIL: the application ($sh_path) is not listed"; cat "$list"; exit 1; }
grep -q "/libc\.so\.6\$" "$list" || { echo "FAIL: libc is not listed"; cat "$list"; exit 1; }
if [ -r /sys/kernel/notes ]; then
	grep -Eq '^[0-9a-f]+ \[kernel\.kallsyms\]$' "$list" || { echo "FAIL: the kernel's build-id is not listed"; cat "$list"; exit 1; }
else
	echo "the kernel's build-id is not checked: /sys/kernel/notes is not readable here"
fi
echo "ok: perf record -B, $checked modules listed with their ELF notes' build-ids"
