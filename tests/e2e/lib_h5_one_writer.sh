#!/usr/bin/env bash
# one .h5 layout (lib/h5_layout.c) for both writers: the library's own .h5 and `regions convert` of the same trace have the same structure (h5dump -H: groups, datasets, shapes, types, attributes; every string variable-length), converted with the library's .h5 beside (it differs only by converted_by) and from the .spt/.sps alone (only what an .sps or a one-thread .spt does not keep is missing: two sampling attributes, the one thread's id and name); a profile whose string attributes are fixed-length, as earlier libraries wrote them, still reads the same
set -eu
B=${NUNATAK_BUILD_DIR:?}
N=${NUNATAK:?}
[ -f "$B/lib/libscope_profiler_h5.so" ] || { echo "skip: built without HDF5 (SP_USE_HDF5=OFF or libhdf5-dev missing)"; exit 2; }
command -v h5dump >/dev/null || { echo "skip: no h5dump (hdf5-tools, scripts/deps.sh test)"; exit 2; }
py=""
for cand in python3 /usr/bin/python3; do
	if "$cand" -c "import h5py" 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with h5py (python3-h5py, scripts/deps.sh test)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SCOPE_PROFILER_HDF5 SCOPE_PROFILER_DISABLE SCOPE_PROFILER_EVENTS SP_LOG_LEVEL || true
fail() { echo "FAIL: $*"; exit 1; }

# h5dump's header of a file without its first line (the file's name).
header() { h5dump -H "$1" | tail -n +2; }

# $1 run name; the rest: the program and its arguments (env set by the caller).
check() {
	local run=$1 d=$tmp/$1
	shift
	mkdir -p "$d/lib" "$d/alone"
	SCOPE_PROFILER_PREFIX="$d/lib/p" "$@" </dev/null >"$d/out.txt" 2>"$d/err.txt" ||
		{ cat "$d/err.txt"; fail "$run: the program failed"; }
	[ -f "$d/lib/p_rank00000.h5" ] || { cat "$d/err.txt"; fail "$run: the library wrote no .h5"; }
	cp "$d/lib/p_rank00000.spt" "$d/alone/"
	[ ! -f "$d/lib/p_rank00000.sps" ] || cp "$d/lib/p_rank00000.sps" "$d/alone/"
	"$N" regions convert "$d/lib" -o "$d/beside.h5" </dev/null >/dev/null 2>"$d/c1.err" ||
		{ cat "$d/c1.err"; fail "$run: convert with the .h5 beside"; }
	"$N" regions convert "$d/alone" -o "$d/alone.h5" </dev/null >/dev/null 2>"$d/c2.err" ||
		{ cat "$d/c2.err"; fail "$run: convert of the .spt alone"; }
	header "$d/lib/p_rank00000.h5" >"$d/lib.txt"
	header "$d/beside.h5" >"$d/beside.txt"
	header "$d/alone.h5" >"$d/alone.txt"
	if grep -q 'STRSIZE [0-9]' "$d/lib.txt" "$d/beside.txt" "$d/alone.txt"; then
		fail "$run: a fixed-length string was written"
	fi
	grep -q 'GROUP "regions"' "$d/lib.txt" || fail "$run: no regions in the library's .h5"
	# with the library's .h5 beside: its /metadata (and samples) plus converted_by
	"$py" - "$d/lib.txt" "$d/beside.txt" "$run" <<'PY'
import sys
a, b = (open(p).read() for p in sys.argv[1:3])
conv = b.find('      ATTRIBUTE "converted_by" {')
assert conv >= 0, "no converted_by in the converted /metadata"
end = b.index("      }\n", b.index("DATASPACE  SCALAR", conv)) + len("      }\n")
assert a == b[:conv] + b[end:], sys.argv[3] + ": the structures differ beyond converted_by"
PY
	# from the .spt alone: identical but for what an .sps does not keep
	"$py" - "$d/lib.txt" "$d/alone.txt" "$run" <<'PY'
import re, sys
a, b = (open(p).read() for p in sys.argv[1:3])
for name in ("overhead", "requested_hz"):
    m = re.search(r'\n( *)ATTRIBUTE "%s" \{\n.*?\n\1\}' % name, a, re.S)
    if m:
        assert "samples" in a[:m.start()].rsplit("GROUP", 1)[1], (name, "outside samples")
        a = a[:m.start()] + a[m.end():]
# a one-thread .spt keeps no thread table (tid, name): no /threads from it
m = re.search(r'\n( *)GROUP "threads" \{\n.*?\n\1\}', a, re.S)
if m and 'GROUP "threads"' not in b:
    assert "SIMPLE { ( 1 ) / ( 1 ) }" in m.group(0), "several threads, yet no /threads"
    a = a[:m.start()] + a[m.end():]
if a != b:
    import difflib
    sys.stdout.writelines(difflib.unified_diff(a.splitlines(True), b.splitlines(True)))
    sys.exit(sys.argv[3] + ": the library's and convert's structures differ")
PY
}

# Threads (lanes, /threads) and the library's sampler (/samples).
SCOPE_PROFILER_SAMPLE_HZ=250 check threads "$B/examples/c/example_threads" 2 100 1
grep -q 'GROUP "samples"' "$tmp/threads/lib.txt" || fail "threads: no samples group to compare"
grep -q 'DATASET "lanes"' "$tmp/threads/lib.txt" || fail "threads: no lanes to compare"
grep -q 'GROUP "threads"' "$tmp/threads/lib.txt" || fail "threads: no threads group to compare"
# Counters per region with the test backend's known counts (/perf_events).
SCOPE_PROFILER_EVENTS=test::FLOP,cycles,test::DRAM_BYTES \
	check counters "$B/tests/programs/ctr_roofline_prog"
grep -q 'GROUP "perf_events"' "$tmp/counters/lib.txt" || fail "counters: no perf_events to compare"

# A profile whose string attributes are fixed-length (the library's kind
# before one writer) reads as the variable-length one.
for run in threads counters; do
	d=$tmp/$run
	mkdir "$d/fixed"
	"$py" - "$d/lib/p_rank00000.h5" "$d/fixed/p_rank00000.h5" <<'PY'
import shutil, sys
import h5py
shutil.copy(sys.argv[1], sys.argv[2])
n = 0
with h5py.File(sys.argv[2], "r+") as f:
    objs = [f]
    f.visititems(lambda name, o: objs.append(o))
    for o in objs:
        for k in list(o.attrs):
            v = o.attrs[k]
            if isinstance(v, (str, bytes)):
                b = v.encode() if isinstance(v, str) else v
                del o.attrs[k]
                o.attrs.create(k, b, dtype=h5py.string_dtype("utf-8", max(len(b), 1)))
                n += 1
assert n > 10, n
PY
	header "$d/fixed/p_rank00000.h5" | grep -q 'STRSIZE [0-9]' || fail "$run: the copy has no fixed-length string"
	for v in lib fixed; do
		"$N" regions inspect "$d/$v/p_rank00000.h5" --json </dev/null >"$d/$v.json" 2>"$d/$v.ierr" ||
			{ cat "$d/$v.ierr"; fail "$run: inspect of the $v .h5"; }
		"$N" regions export "$d/$v/p_rank00000.h5" --format csv -o - </dev/null >"$d/$v.csv"
	done
	cmp "$d/lib.json" "$d/fixed.json" || { diff "$d/lib.json" "$d/fixed.json"; fail "$run: fixed-length attributes read differently"; }
	cmp "$d/lib.csv" "$d/fixed.csv" || fail "$run: fixed-length attributes export differently"
	grep -q . "$d/lib.csv" || fail "$run: empty export"
done
echo ok
