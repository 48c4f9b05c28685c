#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# See CMakeLists.txt beside this file.
set -eu
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache"
unset NUNATAK_NO_CALIBRATE
now() { date +%s.%N; }
# CPU time of this shell's children so far (user + system, s), from bash's
# `times` (run in this shell: a subshell would report its own)
children_cpu() { tail -n 1 "$1" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } printf "%.3f", n }'; }
times >"$WORK/times0"
t0=$(now); "$NUNATAK" calibrate --json > "$WORK/cold.json" 2>/dev/null; t1=$(now)
times >"$WORK/times1"
c0=$(children_cpu "$WORK/times0") c1=$(children_cpu "$WORK/times1")
"$NUNATAK" calibrate --json > "$WORK/second.json" 2>/dev/null; t2=$(now)
threads=$(python3 -c 'import json,sys; print(max(1, int(json.load(open(sys.argv[1]))["machine"]["allocated_cores"])))' "$WORK/cold.json")
cc -O3 -march=native -ffp-contract=fast -pthread -o "$WORK/by_hand" "$BY_HAND_SRC"
triad=$("$WORK/by_hand" triad "$threads" 1024 2>/dev/null)
fma=$("$WORK/by_hand" fma "$threads" 2>/dev/null)
python3 - "$WORK/cold.json" "$WORK/second.json" "$t0" "$t1" "$t2" "$triad" "$fma" "$(cut -d' ' -f1 /proc/loadavg)" "$c0" "$c1" <<'PY'
import json, sys
cold, second = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t0, t1, t2, triad, fma, load, c0, c1 = map(float, sys.argv[3:11])
c = cold["calibration"]
print("load average (1 min)       %.2f on %s allocated cores" % (load, cold["machine"]["allocated_cores"]))
print("cold calibrate             %.2f s wall, %.2f s CPU (nunatak: %.2f s; build %.2f s; triad %.2f s, fma_dp %.2f s, fma_sp %.2f s; cost per sample %.2f s)"
      % (t1 - t0, c1 - c0, c["seconds"], c["build_seconds"], c["kernel_seconds"]["triad"],
         c["kernel_seconds"]["fma_dp"], c["kernel_seconds"]["fma_sp"], c.get("cost_seconds") or 0))
pf = c["page_fault_seconds"]
if pf is not None:
    print("  page faulting the triad   %.2f s = %.0f%% of the cold calibration" % (pf, 100 * pf / c["seconds"]))
print("second calibrate           %.3f s wall, source %s (ratio to cold %.3f)" % (t2 - t1, second["source"], (t2 - t1) / (t1 - t0)))
if not cold["stored"]:
    print("  not cached:", cold["not_stored"])
ceil = {x["name"]: x for x in cold["machine"]["ceilings"]}
def show(name, by_hand, what):
    x = ceil.get(name)
    if not x:
        print("%-26s unavailable" % name)
        return
    line = "%-26s %.3e %s (%s)" % (name, x["value"], x["unit"], x["quality"])
    if by_hand:
        line += "  by hand %s %.3e: ratio %.2f" % (what, by_hand, x["value"] / by_hand)
    print(line)
    if x["reason"]:
        print("  reason:", x["reason"])
show("dram_bandwidth", triad, "triad")
show("flops_dp", fma, "FMA loop")
show("flops_sp", None, "")
for x in cold["machine"].get("costs", []):
    v = x["value"]
    print("%-26s %s (%s)%s" % (x["name"], "%.2f us per sample" % (v * 1e6) if v else "unavailable",
                               x["quality"], ": " + x["reason"] if x["reason"] else ""))
PY
