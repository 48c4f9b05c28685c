#!/bin/bash
# doctor tells the truth about the machine: the counter-group remedy fits the CPU (a virtual PMU only for a Zen VM, never for a CPU without a validated group), and the LLVM it recommends is the one scripts/deps.sh installs
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to build the entries"; exit 2; }
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/out.txt" ] && cat "$tmp/out.txt" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# The LLVM recommended everywhere is ATTRIB_LLVM_RECOMMENDED; deps.sh installs it.
n=$(sed -n 's/^#define ATTRIB_LLVM_RECOMMENDED \([0-9]*\).*/\1/p' "$NUNATAK_SOURCE_DIR/src/tools/locate.h")
[ -n "$n" ] || fail "no ATTRIB_LLVM_RECOMMENDED"
grep -qw "llvm-$n" "$NUNATAK_SOURCE_DIR/scripts/deps.sh" || fail "deps.sh does not install llvm-$n"
bad=$(grep -rhoE "apt-get install llvm(-[0-9]+|-%d)?" "$NUNATAK_SOURCE_DIR/src" | grep -vE "llvm-($n|%d)$" || true)
[ -z "$bad" ] || fail "a remedy recommends another LLVM package: $bad"

# A doctor entry: perf --version, then the probe answer ($2: exit code), for
# the cpuinfo $1 (vendor, family, model, flags).
entry() { # entry <dir> <vendor> <family> <model> <flags> <probe-exit> <probe-stderr>
	python3 - "$@" <<'PY'
import json, os, sys
d, vendor, fam, model, flags, code, err = sys.argv[1:8]
os.makedirs(d + "/invocations")
cpuinfo = (f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {fam}\nmodel\t\t: {model}\n"
           f"model name\t: test cpu\nflags\t\t: fpu {flags} sse2\n\n")
json.dump({"command": ["x"], "platform": {"system": "Linux", "kernel": "6.1", "architecture": "x86_64"},
           "cpuinfo": cpuinfo, "counter_probe": True, "sampling_blocked": False,
           "collectors": [{"tool": "perf", "version": "6.1.0"}]}, open(d + "/meta.json", "w"))
def put(n, argv, code, out="", err=""):
    json.dump({"argv": argv, "exit_code": code, "captured": True}, open(f"{d}/invocations/{n:03d}.json", "w"))
    open(f"{d}/invocations/{n:03d}.stdout", "w").write(out)
    open(f"{d}/invocations/{n:03d}.stderr", "w").write(err)
put(0, ["perf", "--version"], 0, "perf version 6.1.0\n")
put(1, ["perf", "stat"], int(code), "", err)
PY
}
doctor() { "$NUNATAK" doctor --replay "$1" > out.txt 2> err.txt || fail "doctor on $1"; }
line() { sed -n '/^[a-z]* *hardware-counters/,/^[a-z]/p' out.txt | head -2; }

nopmu="event syntax error: 'fp_ret_sse_avx_ops.all'"
# 1. AMD Zen 2 in a VM without a virtual PMU: the virtual PMU is the remedy.
entry amdvm AuthenticAMD 23 49 "hypervisor" 129 "$nopmu"
doctor amdvm
line | grep -q "zen2 counter group cannot open here (event syntax error" || fail "amdvm: $(line)"
line | grep -q "virtual PMU" || fail "a Zen VM must be told about a virtual PMU"
# 2. The same CPU on bare metal: no VM advice, the PMU driver.
entry amdbare AuthenticAMD 23 49 "" 129 "$nopmu"
doctor amdbare
line | grep -q "virtual" && fail "bare metal told about a virtual PMU: $(line)"
line | grep -q "PMU driver" || fail "amdbare: $(line)"
# 3. The group opens: ok, no remedy.
entry amdok AuthenticAMD 25 1 "" 0 ""
doctor amdok
line | grep -qE "^ok +hardware-counters +the zen3 counter group opens" || fail "amdok: $(line)"
# 4. An Intel VM without a PMU: never promised the AMD counter group.
entry intelvm GenuineIntel 6 85 "hypervisor" 0 "<not supported>,,cycles,0,100.00,,"
doctor intelvm
line | grep -q "no FLOP/DRAM counter group is validated for this CPU" || fail "intelvm: $(line)"
line | grep -qi "bare metal\|counter group\b.*bring\|for counter groups" && fail "intel told a remedy that cannot help: $(line)"
line | grep -q "not FLOP or DRAM" || fail "intelvm: the remedy must say what a virtual PMU would not bring: $(line)"
# 5. Intel on bare metal with cycles counted: a warning without any remedy.
entry intelbare GenuineIntel 6 85 "" 0 "123456,,cycles,1000,100.00,,"
doctor intelbare
line | grep -q "^ *->" && fail "intelbare: a remedy offered where none helps: $(line)"
line | grep -q "cycles counted" || fail "intelbare: $(line)"
line | grep -q "a run tries the intel-sp group, never validated on real hardware" ||
	fail "intelbare: the unvalidated group must be named as such: $(line)"
echo ok
