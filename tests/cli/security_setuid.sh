#!/usr/bin/env bash
# a setuid program (another user's) is detected before the run: target-privileged is announced before the launch and recorded, the program runs once, unmeasured (perf and LD_PRELOAD kept out by the kernel), with its own exit status; the same program without the bit is measured as usual (the control)
set -eu
. "$(dirname "$0")/security_lib.bash"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
export NUNATAK_SITE_CONFIG=/dev/null NUNATAK_NO_CALIBRATE=1
cc -O1 -o "$tmp/suid_prog" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c" -pthread
cp "$tmp/suid_prog" "$tmp/plain_prog"
as_attacker "$tmp/suid_prog"
chmod 4755 "$tmp/suid_prog"
if python3 -c 'import os,sys; sys.exit(0 if os.statvfs(sys.argv[1]).f_flag & os.ST_NOSUID else 1)' "$tmp"; then
	echo "skip: $tmp is on a nosuid mount: a setuid bit changes nothing there"; exit 2
fi
cd "$tmp"
check() { # run-dir expect-privileged
	python3 - "$@" <<'PY'
import json, os, sys
run, priv = sys.argv[1], sys.argv[2] == "yes"
m = json.load(open(os.path.join(run, "manifest.json")))
names = [d["name"] for d in m["degradations"]]
assert m["run"]["exit_code"] == 3, m["run"]
assert ("target-privileged" in names) == priv, names
if priv:
    d = [d for d in m["degradations"] if d["name"] == "target-privileged"][0]
    assert "setuid" in d["message"] and "unmeasured" in d["message"], d
PY
}
set +e
"$NUNATAK" run -o "$tmp/r-suid" -- ./suid_prog exit 3 >out.txt 2>err.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || { echo "setuid: exit $rc, the program's is 3"; cat err.txt; exit 1; }
check "$tmp/r-suid" yes || { cat err.txt; exit 1; }
# announced before the launch, and launched bare (no perf around it)
first=$(grep -n "target-privileged" err.txt | head -1 | cut -d: -f1)
launch=$(grep -n "launching: ./suid_prog" err.txt | head -1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$launch" ] && [ "$first" -lt "$launch" ] ||
	{ echo "target-privileged not announced before a bare launch"; cat err.txt; exit 1; }
"$NUNATAK" doctor -- ./suid_prog >doc.txt 2>&1 || true
grep -q "target-privileged" doc.txt || { echo "doctor does not name it"; cat doc.txt; exit 1; }
# The control: the same program, no bit.
set +e
"$NUNATAK" run -o "$tmp/r-plain" -- ./plain_prog exit 3 >out2.txt 2>err2.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || { echo "plain: exit $rc"; cat err2.txt; exit 1; }
check "$tmp/r-plain" no || { cat err2.txt; exit 1; }
echo "ok: a setuid program is detected before the run and runs unmeasured with its status"
