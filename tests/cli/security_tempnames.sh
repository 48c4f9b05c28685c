#!/usr/bin/env bash
# symlinks planted by another user on the temporary names of report, the manifest writer and the library's trace never redirect a write (the victim file stays intact), and a FIFO or symlink named like a Run file or trace (pivot.sqlite, manifest.json, *.spt, *.sps) gives a clear error instead of hanging
set -eu
. "$(dirname "$0")/security_lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export NUNATAK_NO_CALIBRATE=1
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$heat" ] || { echo "FAIL: the C examples are not built ($heat)"; exit 1; }
printf 'precious\n' >victim
fail() { echo "FAIL: $*"; exit 1; }
intact() { [ "$(cat victim)" = precious ] || fail "$1 wrote through a planted symlink into the victim file"; }
# The attacker's symlinks: <name>.tmp.<pid> for the next 400 pids (the old
# names were predictable) and for 10 random suffixes' worth of guessing.
plant() { # dir name
	local last n
	last=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo $$)
	for n in $(seq $((last + 1)) $((last + 400))); do
		ln -sf "$tmp/victim" "$1/$2.tmp.$n"
	done
	as_attacker "$1"/*.tmp.*
}

"$NUNATAK" run -o run -- true >run.txt 2>&1 || { cat run.txt; fail "the Run"; }
chmod 1777 run # a shared Run directory: the attacker may add names, not replace root's
plant run report.html
plant run manifest.json
timeout 120 "$NUNATAK" report run >rep.txt 2>&1 || { cat rep.txt; fail "report refused"; }
intact report
[ -f run/report.html ] && [ ! -L run/report.html ] || fail "report.html is not a regular file"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' run/manifest.json || fail "manifest damaged"

# The library's trace, into a directory the attacker can write.
mkdir traces && chmod 1777 traces
plant traces heat_rank00000.spt
SCOPE_PROFILER_PREFIX="$tmp/traces/heat" "$heat" >/dev/null
intact "the library"
[ -f traces/heat_rank00000.spt ] && [ ! -L traces/heat_rank00000.spt ] || fail "no trace written"
"$NUNATAK" regions inspect traces/heat_rank00000.spt >/dev/null || fail "the trace written beside the symlinks does not read"

# FIFOs and symlinks in place of a Run's files and traces: an error naming
# the file, within the time bound (a hang is the failure).
refused() { # what, then the command
	local what=$1 rc=0
	shift
	timeout 60 "$@" >out.txt 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "$what: hangs"
	[ "$rc" != 0 ] || { cat out.txt; fail "$what: accepted"; }
	grep -qE "not a regular file|symbolic link" out.txt || { cat out.txt; fail "$what: no clear error"; }
}
cp -r run fifo1 && rm fifo1/pivot.sqlite && mkfifo fifo1/pivot.sqlite
refused "a FIFO pivot.sqlite" "$NUNATAK" report fifo1
cp -r run fifo2 && rm fifo2/manifest.json && mkfifo fifo2/manifest.json
refused "a FIFO manifest.json" "$NUNATAK" report fifo2
cp -r run link && rm link/manifest.json && ln -s /etc/shadow link/manifest.json
refused "manifest.json linked to /etc/shadow" "$NUNATAK" report link
! grep -q "root:" out.txt || fail "the linked file's content was printed"
mkfifo fifo_rank00000.spt
refused "a FIFO .spt" "$NUNATAK" regions inspect fifo_rank00000.spt
ln -s "$tmp/traces/heat_rank00000.spt" link_rank00000.spt
refused "a symlinked .spt" "$NUNATAK" regions inspect link_rank00000.spt
mkfifo fifo_rank00000.sps
refused "a FIFO .sps" "$NUNATAK" regions inspect fifo_rank00000.sps
echo ok
