#!/bin/bash
# Preload collector: perf missing (tools.perf nowhere), perf refusing to sample (paranoid=3 stand-in) and --collector preload each sample the 70/30 program through LD_PRELOAD, once, both functions within 10 points (or 4.5 standard errors of the samples delivered), the Run naming the stand-in
set -eu
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# As tests/e2e/lib_sampling.sh: an ASan-built libscope_profiler.so cannot be
	# preloaded into a plain program; the gcc pass runs this test.
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g "$NUNATAK_SOURCE_DIR/tests/fixtures/attrib/two_funcs.c" -o "$tmp/two_funcs"
stand_in="$NUNATAK_SOURCE_DIR/tests/fixtures/collect/perf_paranoid3.sh"
# A user's own LD_PRELOAD must keep working beside ours.
cat >"$tmp/mine.c" <<'C'
#include <stdio.h>
__attribute__((constructor)) static void mine(void) { fputs("mine loaded\n", stderr); }
C
gcc -shared -fPIC -o "$tmp/libmine.so" "$tmp/mine.c"

check() { # case-name, then nunatak run options
	local name=$1; shift
	mkdir -p "$tmp/$name"
	cd "$tmp/$name"
	set +e
	LD_PRELOAD="$tmp/libmine.so" "$NUNATAK" run --json -o "$tmp/$name/run" "$@" -- \
		"$tmp/two_funcs" 400000000 >"$tmp/$name/out.json" 2>"$tmp/$name/err.txt"
	local rc=$?
	set -e
	[ "$rc" -eq 0 ] || { cat "$tmp/$name/err.txt"; echo "$name: nunatak run exited $rc"; exit 1; }
	grep -q "mine loaded" "$tmp/$name/err.txt" || {
		cat "$tmp/$name/err.txt"; echo "$name: the user's LD_PRELOAD was lost"; exit 1; }
	"$NUNATAK" report --json "$tmp/$name/run" >"$tmp/$name/report.json"
	python3 - "$name" "$tmp/$name" <<'PY'
import json, sys
name, d = sys.argv[1], sys.argv[2]
import re
# under --json the application's stdout goes to stderr: its one line (it ran once)
runs = [l for l in open(d + "/err.txt") if re.match(r"^[0-9.e+-]+ [0-9.e+-]+$", l.strip())]
assert len(runs) == 1, "the application ran %d times" % len(runs)
run = json.load(open(d + "/out.json"))
assert run["collector"] == "preload", run.get("collector")
degs = {g["name"]: g for g in run["degradations"]}
assert "cpu-collection-preload" in degs, list(degs)
assert "LD_PRELOAD" in degs["cpu-collection-preload"]["message"]
assert degs["cpu-collection-preload"]["remedy"], degs
assert "counter-events-rejected" not in degs, "a permission refusal blamed the counter group"
man = json.load(open(d + "/run/manifest.json"))
tools = [c["tool"] for p in man["passes"] for c in p["collectors"]]
assert tools == ["scope_profiler-preload"], tools
rep = json.load(open(d + "/report.json"))
shares = {h["name"]: h["share"]["value"] for h in rep["hotspots"]}
# Within 10 points, or 4.5 standard errors of a share measured with n
# samples where a loaded machine delivered fewer (the kernel folds a CPU-time
# timer's expirations into one signal when the thread is off the CPU at its
# tick: each sample then weighs more, and there are fewer of them).
n = rep["coverage"]["samples"]["value"]
assert n and n > 0, rep["coverage"]
for fn, want in (("heavy_seventy", 0.70), ("light_thirty", 0.30)):
    assert fn in shares, (fn, list(shares))
    bound = max(0.10, 4.5 * (want * (1 - want) / n) ** 0.5)
    assert abs(shares[fn] - want) <= bound, (name, fn, shares[fn], n, bound)
hs = {h["name"]: h for h in rep["hotspots"]}
assert hs["heavy_seventy"]["share"]["quality"] == "estimated", hs["heavy_seventy"]["share"]
print(f"{name}: heavy {shares['heavy_seventy']:.3f} light {shares['light_thirty']:.3f}")
PY
	grep -q "preload sampler: [0-9]* samples for [0-9]* timer expirations at a measured [0-9]* Hz" "$tmp/$name/err.txt" || {
		cat "$tmp/$name/err.txt"; echo "$name: the time base was not stated"; exit 1; }
}

# 1. perf missing: tools.perf points nowhere
mkdir -p "$tmp/missing"
printf '[tools]\nperf = "%s/nowhere/perf"\n' "$tmp" >"$tmp/missing/nunatak.toml"
check missing
grep -q "perf not found" "$tmp/missing/err.txt" || { echo "missing: why not said"; exit 1; }
# 2. perf refusing to sample as perf_event_paranoid=3 makes it
mkdir -p "$tmp/paranoid"
printf '[tools]\nperf = "%s"\n' "$stand_in" >"$tmp/paranoid/nunatak.toml"
check paranoid
grep -q "perf record cannot sample here (exit 255: perf_event_paranoid" "$tmp/paranoid/err.txt" || {
	cat "$tmp/paranoid/err.txt"; echo "paranoid: why not said"; exit 1; }
# 3. forced
check forced --collector preload
grep -q "\-\-collector preload" "$tmp/forced/err.txt" || { echo "forced: why not said"; exit 1; }
# --collector perf where perf cannot sample: no stand-in, said so
mkdir -p "$tmp/perfonly"
printf '[tools]\nperf = "%s/nowhere/perf"\n' "$tmp" >"$tmp/perfonly/nunatak.toml"
(cd "$tmp/perfonly" && "$NUNATAK" run --json -o "$tmp/perfonly/run" --collector perf -- \
	"$tmp/two_funcs" 1000 >"$tmp/perfonly/out.json" 2>"$tmp/perfonly/err.txt")
grep -q '"collector": "none"' "$tmp/perfonly/out.json" || { cat "$tmp/perfonly/out.json"; exit 1; }
grep -q "cpu-collection-unavailable" "$tmp/perfonly/err.txt" || { cat "$tmp/perfonly/err.txt"; exit 1; }
"$NUNATAK" run --collector bogus -- true 2>/dev/null && { echo "--collector bogus accepted"; exit 1; }
echo ok
