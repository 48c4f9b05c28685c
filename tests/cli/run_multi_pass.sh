#!/bin/bash
# --multi-pass with a stand-in perf that accepts every option: one run of the application per pass into collect/pass-<i>/, each pass announced; a pass exiting non-zero skips the rest (passes-skipped), the application's code kept; unknown microarchitecture: multi-pass-unavailable (an MPI launch: run_multi_pass_mpi.sh)
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# fake_perf.sh, plus a `perf stat` that opens every event (the counter-group
# probe): this stand-in has the PMU this VM lacks.
cat >perf <<SH
#!/bin/sh
[ "\$1" = stat ] && exit 0
exec "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" "\$@"
SH
chmod +x perf
printf '[tools]\nperf = "%s"\n' "$tmp/perf" >nunatak.toml
cat >app.sh <<'SH'
#!/bin/sh
echo ran >>"$(dirname "$0")/runs"
exit "${APP_EXIT:-0}"
SH
chmod +x app.sh
set +e
"$NUNATAK" run --multi-pass -o "$tmp/ok" -- ./app.sh >out.txt 2>err.txt
rc=$?
set -e
if grep -q "multi-pass-unavailable" err.txt; then
	echo "skip: this CPU has no counter groups for multi-pass (not Zen 2/3/4)"; exit 2
fi
[ "$rc" -eq 0 ] || { cat err.txt; echo "FAIL: exit $rc"; exit 1; }
[ "$(wc -l <runs)" -eq 2 ] || { echo "FAIL: the application ran $(wc -l <runs) times for 2 passes"; exit 1; }
grep -q "multi-pass: 2 passes (flops, memory), witness replicated in each" err.txt || { cat err.txt; exit 1; }
grep -q "collecting with perf 6.1.0 \[pass 0: flops\]: ./app.sh" err.txt || { cat err.txt; exit 1; }
grep -q "collecting with perf 6.1.0 \[pass 1: memory\]: ./app.sh" err.txt || { cat err.txt; exit 1; }
[ -f ok/collect/pass-0/perf.data ] && [ -f ok/collect/pass-1/perf.data ] || { find ok; echo "FAIL: pass dirs"; exit 1; }
python3 - ok/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert [p["index"] for p in m["passes"]] == [0, 1], m["passes"]
assert m["files"]["perf.data.pass-1"] == "collect/pass-1/perf.data", m["files"]
PY
# pass 0 fails: pass 1 never runs, the application's code is pass 0's
rm -f runs
set +e
APP_EXIT=3 "$NUNATAK" run --multi-pass -o "$tmp/fail" -- ./app.sh >out.txt 2>err2.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || { cat err2.txt; echo "FAIL: exit $rc, expected the application's 3"; exit 1; }
[ "$(wc -l <runs)" -eq 1 ] || { echo "FAIL: ran $(wc -l <runs) times after pass 0 failed"; exit 1; }
grep -q "degraded \[passes-skipped\]: pass 0 exited with 3: pass 1 not run" err2.txt || { cat err2.txt; exit 1; }
python3 - fail/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert [p["index"] for p in m["passes"]] == [0] and m["passes"][0]["exit_code"] == 3, m["passes"]
assert "passes-skipped" in [d["name"] for d in m["degradations"]]
PY
echo ok
