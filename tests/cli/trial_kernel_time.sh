#!/bin/bash
# an ordinary user under kernel.perf_event_paranoid >= 2 samples user space only: the Run says kernel-time-unsampled before it runs, never losing the kernel's time silently (as `nobody` when the suite runs as root)
set -eu
p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo "")
[ -n "$p" ] && [ "$p" -ge 2 ] && [ "$p" -le 2 ] ||
	{ echo "skip: kernel.perf_event_paranoid is ${p:-unreadable}, not 2 (the user-space-only case)"; exit 2; }
as=()
if [ "$(id -u)" = 0 ]; then
	command -v runuser >/dev/null && id nobody >/dev/null 2>&1 || {
		echo "skip: root without runuser or a nobody user to run as"; exit 2; }
	as=(runuser -u nobody --)
fi
# What the other user runs is copied where it can enter (the clone may sit
# under a private parent); it writes in a directory of its own.
tmp=$(mktemp -d -p /tmp)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 755 "$tmp/bin"
cp "$NUNATAK" "$tmp/bin/nunatak"
cp "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" "$tmp/bin/perf"
chmod -R a+rX "$tmp/bin"
mkdir -m 700 "$tmp/work"
[ ${#as[@]} -eq 0 ] || chown nobody "$tmp/work"
cd "$tmp/work"
printf '[tools]\nperf = "%s"\n' "$tmp/bin/perf" > nunatak.toml
[ ${#as[@]} -eq 0 ] || chown nobody nunatak.toml
"${as[@]}" env HOME="$tmp/work" XDG_CACHE_HOME="$tmp/work/cache" "$tmp/bin/nunatak" run \
	-o "$tmp/work/run" -- true >/dev/null 2>"$tmp/err.txt" </dev/null ||
	{ cat "$tmp/err.txt"; echo "FAIL: run as an ordinary user exited $?"; exit 1; }
grep -q "degraded \[kernel-time-unsampled\]: kernel.perf_event_paranoid=2: as an ordinary user, perf samples user space only" "$tmp/err.txt" ||
	{ cat "$tmp/err.txt"; echo "FAIL: the kernel's time was lost silently"; exit 1; }
echo ok
