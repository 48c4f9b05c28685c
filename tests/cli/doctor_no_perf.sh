#!/usr/bin/env bash
# nunatak doctor without perf on PATH (or a bad tools.perf): cpu-collector missing with its remedy, and the collector check says the run will use the preload sampler and why
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/proj"
# A PATH holding everything doctor may call except perf.
for t in sh cc gcc llvm-symbolizer addr2line mpirun; do
	p=$(command -v "$t" || true)
	[ -n "$p" ] && ln -s "$p" "$tmp/bin/$t"
done
cd "$tmp/proj"
PATH="$tmp/bin" "$NUNATAK" doctor >out.txt
grep -qE '^missing  cpu-collector +perf not found' out.txt || { cat out.txt; exit 1; }
grep -A1 -E '^missing  cpu-collector' out.txt | grep -q -- '-> install perf'
grep -qE '^missing  hardware-counters ' out.txt
grep -qE '^warning  collector +preload sampler \(.*libscope_profiler.so via LD_PRELOAD\), because perf not found' out.txt || { cat out.txt; exit 1; }
grep -q '\[cpu-collection-preload\] perf not found: libscope_profiler samples the application through LD_PRELOAD' out.txt
! grep -q 'cpu-collection-unavailable' out.txt || { echo "the stand-in's degradation should replace it"; exit 1; }

PATH="$tmp/bin" "$NUNATAK" doctor --json >out.json
python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {c["name"]: c for c in d["checks"]}
assert c["cpu-collector"]["status"] == "missing", c["cpu-collector"]
assert "tools.perf" in c["cpu-collector"]["remedy"]
assert c["collector"]["status"] == "warning" and "preload" in c["collector"]["detail"], c["collector"]
assert any(g["name"] == "cpu-collection-preload" for g in d["degradations"]), d
PY

# The project's [tools] perf is honoured (and a wrong one reported).
printf '[tools]\nperf = "/nonexistent/perf"\n' >nunatak.toml
"$NUNATAK" doctor >out2.txt
grep -qE '^missing  cpu-collector ' out2.txt || { cat out2.txt; exit 1; }
grep -qE "^ok +configuration +site: none; project: $tmp/proj/nunatak.toml" out2.txt
# A broken nunatak.toml is reported, and doctor still answers (exit 0).
printf '[tools\n' >nunatak.toml
"$NUNATAK" doctor >out3.txt 2>err3.txt
grep -qE '^missing  configuration +.*nunatak.toml:1:7: expected' out3.txt || { cat out3.txt; exit 1; }
echo ok
