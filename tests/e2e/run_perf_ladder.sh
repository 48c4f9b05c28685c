#!/bin/bash
# nunatak run fallback ladder with a stand-in perf: a rejected -k is retried without it, a perf that rejects everything leaves the app run bare; the app runs exactly once
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
cd "$WORK"
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" > nunatak.toml
printf '#!/bin/sh\necho ran >> side-effect\nexit 5\n' > app.sh
chmod +x app.sh
code() { set +e; "$@" > out.txt 2> err.txt; echo $?; set -e; }

[ "$(FAKE_PERF_REJECT=-k code "$NUNATAK" run -- ./app.sh)" -eq 5 ] || fail "exit code must pass through"
grep -q "degraded \[monotonic-clock-rejected\]" err.txt || fail "no monotonic-clock-rejected"
[ "$(grep -c "collecting with perf 6.1.0" err.txt)" -eq 2 ] || fail "expected one retry"
[ "$(wc -l < side-effect)" -eq 1 ] || fail "the application ran $(wc -l < side-effect) times"

rm -f side-effect
# --collector perf: no stand-in (auto samples with the preload sampler here,
# tests/e2e/run_preload.sh)
[ "$(FAKE_PERF_REJECT=all code "$NUNATAK" run --collector perf -- ./app.sh)" -eq 5 ] || fail "exit code must pass through"
grep -q "degraded \[cpu-collection-failed\]" err.txt || fail "no cpu-collection-failed"
grep -q "launching: ./app.sh" err.txt || fail "the app must run bare"
[ "$(wc -l < side-effect)" -eq 1 ] || fail "the application ran $(wc -l < side-effect) times"
ls .nunatak/*/manifest.json > /dev/null || fail "no Run"
