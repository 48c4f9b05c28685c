#!/bin/bash
# as an ordinary user (nobody when the suite runs as root), a program that sleeps half its wall time still gets its off-CPU time within 15% of its own wall - CPU with what remains possible: perf's context switches (per thread, not attributed) where perf may sample, else the process-level rusage; the off-CPU Hotspots hold a function only with the switches' call stacks
set -eu
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	# the preload sampler may stand in: an ASan-built libscope_profiler.so
	# cannot be preloaded into a plain program; the gcc pass runs this test
	echo "skip: an ASan-built library cannot be preloaded into a plain program"; exit 2
fi
. "$NUNATAK_SOURCE_DIR/tests/other_user.sh"
other_user_setup
cc -O1 -g -fno-omit-frame-pointer -o "$home/sleeper" "$NUNATAK_SOURCE_DIR/tests/fixtures/offcpu/sleeper.c"
[ ${#as[@]} -eq 0 ] || chown -R nobody "$home"
cat >"$home/job.sh" <<SH
set -eu
export HOME="$home" XDG_CACHE_HOME="$home/cache"
cd "$home"
"$NUNATAK" run -o "$home/run" -- ./sleeper "$home/truth.txt" >out 2>err </dev/null
"$NUNATAK" report --json "$home/run" >payload.json
SH
"${as[@]}" bash "$home/job.sh" || { echo "the run as $("${as[@]}" id -un) failed"; cat "$home/err" 2>/dev/null; exit 1; }
grep -q "time: wall .* s; on CPU .* s (.*% of wall time), off CPU .* s (.*% of wall time" "$home/err" ||
	{ echo "FAIL: no time line"; cat "$home/err"; exit 1; }
python3 - "$home" <<'PY'
import json, sys
home = sys.argv[1]
wall, cpu = map(float, open(home + "/truth.txt").read().split())
rep = json.load(open(home + "/payload.json"))
tb = rep["time_budget"]
mech = tb["mechanism"]
truth = (wall - cpu) * 1e9
off = tb["offcpu_ns"]["value"]
assert off is not None and abs(off - truth) <= 0.15 * truth, (mech, off, truth)
attributed = [h for h in rep["offcpu_hotspots"] if h["attributed"]]
if mech == "context switches + their call stacks":
    assert attributed and attributed[0]["name"] == "nap_between_rounds", attributed[:2]
else:
    assert mech in ("context switches", "process rusage"), mech
    assert not attributed, attributed
    names = [d["name"] for d in rep["degradations"]]
    assert "offcpu-unattributed" in names, names  # announced, with its remedy
print("mechanism %s: off-CPU %.3f s vs %.3f s" % (mech, off / 1e9, truth / 1e9))
PY
echo "ok (as $("${as[@]}" id -un))"
