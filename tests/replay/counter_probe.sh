#!/bin/bash
# counter-group probe and ladder under replay: a Zen VM without a virtual PMU drops the group before the run with a remedy that helps there (one perf record, no retry), and a recorded rejected perf record is retried on replay exactly as it was recorded
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
BASE="$CORPUS/workload-c"
[ -d "$BASE" ] || fail "corpus entry workload-c missing under $CORPUS"
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }

# Derives an entry (in $WORK, the corpus is never edited) from workload-c:
# meta.json names a Zen 2 VM and says the probe was recorded; $2 is a JSON
# list of invocations to insert before the recorded perf record.
derive() { # derive <dir> <json-inserts>
	python3 - "$BASE" "$1" "$2" <<'PY'
import json, os, shutil, sys, glob
base, out, inserts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
os.makedirs(out + "/invocations")
meta = json.load(open(base + "/meta.json"))
meta["cpuinfo"] = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n"
                   "model name\t: AMD EPYC 7702 64-Core Processor\n"
                   "flags\t\t: fpu vme sse2 avx2 hypervisor lahf_lm\n\n")
meta["counter_probe"] = True
json.dump(meta, open(out + "/meta.json", "w"), indent=2)
n = 0
def put(inv, stdout=None, stderr=None):
    global n
    stem = "%s/invocations/%03d" % (out, n)
    json.dump(inv, open(stem + ".json", "w"), indent=2)
    if stdout is not None: open(stem + ".stdout", "w").write(stdout)
    if stderr is not None: open(stem + ".stderr", "w").write(stderr)
    n += 1
for f in sorted(glob.glob(base + "/invocations/*.json")):
    inv = json.load(open(f))
    if inv["argv"][:2] == ["perf", "record"]:
        for extra in inserts:
            put(extra["inv"], extra.get("stdout"), extra.get("stderr"))
    stem = f[:-5]
    rd = lambda ext: open(stem + ext).read() if os.path.exists(stem + ext) else None
    put(inv, rd(".stdout"), rd(".stderr"))
PY
}
replay() { # replay <entry> -> $WORK/<entry>.err, .json
	(cd "$WORK" && "$NUNATAK" run --replay "$WORK/$1" --json -- ./workload \
		> "$WORK/$1.json" 2> "$WORK/$1.err") || { cat "$WORK/$1.err" >&2; fail "replay of $1: exit $?"; }
}
printf 'runs_dir = ".nunatak"\n' > "$WORK/nunatak.toml"
(cd "$WORK" && "$NUNATAK" run --replay "$BASE" --json -- ./workload > "$WORK/plain.json" \
	2> "$WORK/plain.err") || fail "replay of workload-c"
same() { # same <json>: the samples of the plain replay, all of them
	python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:])
assert (a['hotspots'], a['measurements']) == (b['hotspots'], b['measurements']), (a, b)" \
		"$WORK/plain.json" "$1"
}

# 1. The probe (recorded right after `perf --version`) failed: no group asked.
probe='{"inv": {"argv": ["perf", "stat", "-x", ",", "-o", "/dev/null", "-e", "task-clock", "-e", "fp_ret_sse_avx_ops.all", "--", "true"], "exit_code": 129, "captured": true}, "stdout": "", "stderr": "event syntax error: '"'"'fp_ret_sse_avx_ops.all'"'"'\n"}'
derive "$WORK/novpmu" "[$probe]"
replay novpmu
grep -q "degraded \[counter-events-unavailable\]: perf cannot open the zen2 counter group.*event syntax error" "$WORK/novpmu.err" ||
	fail "the probe's failure is not announced with perf's reason: $(cat "$WORK/novpmu.err")"
grep -q "virtual PMU" "$WORK/novpmu.err" || fail "a VM must be told about a virtual PMU"
[ "$(grep -c "collecting with perf" "$WORK/novpmu.err")" -eq 1 ] || fail "one perf record expected"
grep -q "counter-events-rejected" "$WORK/novpmu.err" && fail "the group was still requested"
same "$WORK/novpmu.json" || fail "samples lost after the probe"

# 2. The recording had a rejected perf record (-k refused: exit 129, no
# perf.data) and a retry: the replay retries too and still gets perf script.
# (perf's FIFO: --version, stat, record rejected, record, script, buildid-list.)
rejected='{"inv": {"argv": ["perf", "record", "-k", "CLOCK_MONOTONIC", "--", "./workload"], "exit_code": 129, "captured": false, "output_written": false}}'
derive "$WORK/retry" "[$probe, $rejected]"
replay retry
grep -q "degraded \[monotonic-clock-rejected\]" "$WORK/retry.err" || fail "no step down the ladder"
[ "$(grep -c "collecting with perf" "$WORK/retry.err")" -eq 2 ] || fail "the retry was not replayed"
grep -q "counter-events-rejected" "$WORK/retry.err" && fail "the group was still requested"
same "$WORK/retry.json" || fail "the replayed retry lost perf script's samples"
echo ok
