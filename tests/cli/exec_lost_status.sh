#!/bin/bash
# perf stat 6.1 loses its application's exit status when the application ends
# before perf reaches its wait4 (seen on a loaded machine: exit 5 read as 0,
# about 1 run in 25). The execution boundary, a subreaper while a wrapper
# runs, reads the status from the application's zombie instead. The race is
# made certain here by a fake perf that never waits for its application.
set -eu
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect" "$tmp/fake"
cat >"$tmp/fake/perf" <<'PY'
#!/usr/bin/env python3
# perf stat that forks its application and exits 0 without waiting for it,
# once it is a zombie: what perf does when its SIGCHLD comes early.
import os, sys, time
args = sys.argv[1:]
out = args[args.index("-o") + 1] if "-o" in args else None
cmd = args[args.index("--") + 1:]
if args[0] == "--version":
    print("perf version 6.1.0"); sys.exit(0)
pid = os.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
for _ in range(2000):
    with open(f"/proc/{pid}/stat") as f:
        if f.read().rsplit(")", 1)[1].split()[0] == "Z":
            break
    time.sleep(0.005)
if out:
    with open(out, "w") as f:
        f.write("# started on today\n\n1.00,msec,task-clock,1000000,100.00,1.000,CPUs utilized\n")
sys.exit(0)
PY
chmod +x "$tmp/fake/perf"
cat >"$tmp/app.sh" <<'SH'
#!/bin/sh
echo out
exit 5
SH
chmod +x "$tmp/app.sh"
set +e
env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=8 \
	OMPI_COMM_WORLD_LOCAL_RANK=1 "$NUNATAK" rank-shim --directory "$tmp/collect" \
	--rank-threshold 2 --perf "$tmp/fake/perf" -- "$tmp/app.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 5 ] || { echo "exit $rc, expected the application's 5"; cat "$tmp/err"; exit 1; }
[ "$(cat "$tmp/out")" = out ] || { echo "output changed"; cat "$tmp/out"; exit 1; }
python3 -c "
import json; j = json.load(open('$tmp/collect/rank-5/rank.json'))
assert j['exit_code'] == 5 and j['role'] == 'counter', j"
echo ok
