#!/usr/bin/env bash
# a nunatak.toml planted by another user (or in a directory another user can write) is ignored with a warning naming it: its tools.perf never runs, in doctor or run (git's safe.directory rule)
set -eu
. "$(dirname "$0")/security_lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# The attacker's "perf": leaves a mark saying who ran it.
cat >"$tmp/evil.sh" <<SH
#!/bin/sh
id -u >>"$tmp/pwned"
echo "perf version 6.1"
SH
chmod 755 "$tmp/evil.sh"
printf '[tools]\nperf = "%s"\n' "$tmp/evil.sh" >"$tmp/planted.toml"

# 1. A shared directory (sticky, like /tmp or a project space) where the
#    attacker planted nunatak.toml; root works in a folder below it.
mkdir -p "$tmp/shared/proj"
chmod 1777 "$tmp/shared"
cp "$tmp/planted.toml" "$tmp/shared/nunatak.toml"
as_attacker "$tmp/shared/nunatak.toml"
cd "$tmp/shared/proj"
"$NUNATAK" doctor >out.txt 2>err.txt || true
grep -q "ignoring the project configuration $tmp/shared/nunatak.toml: owned by another user" err.txt ||
	{ echo "no warning naming the planted file"; cat err.txt; exit 1; }
[ ! -e "$tmp/pwned" ] || { echo "doctor ran the attacker's perf as uid $(cat "$tmp/pwned")"; exit 1; }
grep -qE '^warning +configuration +site: none; project: none' out.txt || { cat out.txt; exit 1; }
"$NUNATAK" run -- true >run.txt 2>&1 || true
grep -q "ignoring the project configuration $tmp/shared/nunatak.toml" run.txt || { cat run.txt; exit 1; }
[ ! -e "$tmp/pwned" ] || { echo "run ran the attacker's perf"; exit 1; }

# 2. Root's own file, but in a directory the attacker owns (who can swap it).
mkdir -p "$tmp/theirs/proj"
cp "$tmp/planted.toml" "$tmp/theirs/nunatak.toml"
as_attacker "$tmp/theirs"
cd "$tmp/theirs/proj"
"$NUNATAK" doctor >out.txt 2>err.txt || true
grep -q "ignoring the project configuration $tmp/theirs/nunatak.toml: $tmp/theirs: owned by another user" err.txt ||
	{ cat err.txt; exit 1; }
[ ! -e "$tmp/pwned" ] || { echo "doctor ran a perf from a directory the attacker owns"; exit 1; }

# 3. Root's own file, but writable by every user.
mkdir -p "$tmp/open/proj"
cp "$tmp/planted.toml" "$tmp/open/nunatak.toml"
chmod 666 "$tmp/open/nunatak.toml"
cd "$tmp/open/proj"
"$NUNATAK" doctor >out.txt 2>err.txt || true
grep -q "ignoring the project configuration $tmp/open/nunatak.toml: .*writable by every user" err.txt ||
	{ cat err.txt; exit 1; }
[ ! -e "$tmp/pwned" ] || { echo "doctor ran a perf from a world-writable config"; exit 1; }

# The control: the same file, root's and private, is honoured (so the checks
# above test the ownership rule, not a config that is never read).
chmod 644 "$tmp/open/nunatak.toml"
"$NUNATAK" doctor >out.txt 2>err.txt || true
! grep -q "ignoring the project configuration" err.txt || { cat err.txt; exit 1; }
[ "$(head -n1 "$tmp/pwned")" = 0 ] || { echo "a trusted tools.perf was not run"; cat out.txt; exit 1; }
echo ok
