#!/bin/bash
# --multi-pass under an MPI launch (a stand-in perf that accepts every option): one pass, said so as multi-pass-unavailable, never refused
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed (apt-get install openmpi-bin)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
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
SH
chmod +x app.sh
"$NUNATAK" run --multi-pass -o "$tmp/mpi" -- mpirun --oversubscribe --allow-run-as-root -n 1 ./app.sh \
	>/dev/null 2>err.txt || true
grep -q "degraded \[multi-pass-unavailable\]: --multi-pass does not apply to an MPI launch" err.txt ||
	{ cat err.txt; echo "FAIL: no multi-pass-unavailable for an MPI launch"; exit 1; }
[ "$(wc -l <runs)" -eq 1 ] || { echo "FAIL: the application ran $(wc -l <runs) times, expected one pass"; exit 1; }
echo ok
