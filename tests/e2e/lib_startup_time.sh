#!/usr/bin/env bash
# scope_profiler's startup time is the seed's: from the start of the run (the process start) to the first region, so 200 ms spent before the first region (after sp_init) shows as at least 200 ms, in inspect and in the .h5's start_time_ns
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
N=${NUNATAK:?}
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SCOPE_PROFILER_DISABLE || true
cat >"$tmp/late.c" <<'C'
#include <time.h>
#include <scope_profiler.h>
int main(void)
{
	sp_init(NULL, "late");
	/* 200 ms the instrumentation never sees: reading input, a mesh... */
	struct timespec ts = {0, 200000000};
	while (nanosleep(&ts, &ts))
		;
	const struct sp_site *r = sp_region("solve");
	sp_begin(r);
	sp_end(r);
	return sp_finalize();
}
C
# The sanitizer pass's library needs its runtime in the program (clang's).
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then cc=(clang -fsanitize=address,undefined); else cc=(cc); fi
"${cc[@]}" -I"$S/include" "$tmp/late.c" -o "$tmp/late" -L"$B/lib" -lscope_profiler -Wl,-rpath,"$B/lib"
SCOPE_PROFILER_HDF5=0 SCOPE_PROFILER_PREFIX="$tmp/late" "$tmp/late"
"$N" regions inspect "$tmp/late_rank00000.spt" >"$tmp/inspect.txt"
grep -qE "startup \(process start to the first region\) [0-9.]+ (ms|s)" "$tmp/inspect.txt" ||
	{ cat "$tmp/inspect.txt"; echo "FAIL: no startup line"; exit 1; }
"$N" regions inspect --json "$tmp/late_rank00000.spt" >"$tmp/inspect.json"
python3 - "$tmp/inspect.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["rank_notes"][0]["timing"]
# at least the 200 ms slept before the first region (a lower bound, never a
# timing race): library init to the first region alone is already that
first = min(x["first_ns"] for x in t["threads"])
assert t["startup_ns"] >= 200e6 and t["startup_ns"] >= first - t["init_ns"], t
print("startup_ns", t["startup_ns"])
PY
echo ok
