#!/usr/bin/env bash
# the cache on a shared machine: a cache root pre-created by another user is never used, the cache is made 0700, and a tool's answer forged in the cache (edited in place, or another user's file) is a miss: the Run reports what the tool says, never FORGED
set -eu
. "$(dirname "$0")/security_lib.bash"
command -v perf >/dev/null || { echo "skip: perf missing: no tool answer to forge"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export NUNATAK_NO_CALIBRATE=1

# 1. XDG_CACHE_HOME shared, its nunatak folder pre-created by the attacker.
mkdir -p shared/nunatak
chmod 777 shared shared/nunatak
as_attacker shared/nunatak
XDG_CACHE_HOME="$tmp/shared" "$NUNATAK" run -o r1 -- true >out1.txt 2>&1 ||
	{ cat out1.txt; echo "a cache another user owns must not refuse the Run"; exit 1; }
[ -z "$(find shared/nunatak -mindepth 1 -print -quit)" ] ||
	{ find shared -ls; echo "root read and wrote a cache the attacker owns"; exit 1; }

# 2. A private cache: made 0700, filled (the control for 1), sealed.
XDG_CACHE_HOME="$tmp/priv" "$NUNATAK" run -o r2 -- true >out2.txt 2>&1 || { cat out2.txt; exit 1; }
[ "$(stat -c %a priv/nunatak)" = 700 ] || { stat priv/nunatak; exit 1; }
entry=$(grep -l -a 'perf version' -r priv/nunatak/exec | head -n1)
[ -n "$entry" ] || { echo "no cached 'perf --version' answer: the test cannot forge one"; exit 1; }
version=$(perf --version | awk '{print $3}')
grep -q "\"$version\"" r2/manifest.json || { echo "perf $version is not in the manifest"; exit 1; }

forge() { # same length, key intact: only a seal tells it apart
	python3 - "$entry" <<'PY'
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
i = d.rindex(b'perf version ')
v = d[i + 13:].rstrip(b'\n')
d = d[:i + 13] + b'9' * len(v) + d[i + 13 + len(v):]
open(p, 'wb').write(d)
PY
}
# 2a. edited in place (a group-writable entry from an older nunatak)
forge
XDG_CACHE_HOME="$tmp/priv" "$NUNATAK" run -o r3 -- true >out3.txt 2>&1 || { cat out3.txt; exit 1; }
! grep -q '"999' r3/manifest.json || { echo "the forged perf version was shown"; exit 1; }
grep -q "\"$version\"" r3/manifest.json || { echo "the real perf version is missing"; exit 1; }
# 2b. the attacker's own file in its place
forge
as_attacker "$entry"
XDG_CACHE_HOME="$tmp/priv" "$NUNATAK" run -o r4 -- true >out4.txt 2>&1 || { cat out4.txt; exit 1; }
! grep -q '"999' r4/manifest.json || { echo "another user's cached answer was shown"; exit 1; }
echo ok
