#!/usr/bin/env bash
# nunatak doctor --replay: answers from a recorded corpus entry (perf 6.14.11, no LLVM) via the executor
set -eu
entry=${NUNATAK_CORPUS_DIR:?}/recordings/perf/6.14.11/linux-x86_64/workload-c
[ -d "$entry" ] || { echo "FAIL: corpus entry $entry missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$NUNATAK" doctor --replay "$entry" >out.txt
# perf's version is the recording machine's, not this one's.
grep -qE '^ok +cpu-collector +perf 6\.14\.11 ' out.txt || { cat out.txt; exit 1; }
# The entry recorded two failed llvm-symbolizer probes and no addr2line: nothing stands in.
grep -qE '^missing +llvm +no llvm-symbolizer and no GNU addr2line' out.txt || { cat out.txt; exit 1; }
grep -q '\[llvm-missing\]' out.txt
# A program the entry never recorded answers 127: absent.
grep -qE '^missing +compiler +cc not found' out.txt
"$NUNATAK" doctor --replay /nonexistent/entry >/dev/null 2>err.txt && { echo "bad entry accepted"; exit 1; }
grep -q 'is not a corpus entry' err.txt
echo ok
