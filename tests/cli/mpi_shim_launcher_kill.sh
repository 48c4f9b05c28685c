#!/bin/bash
# A launcher's kill of a rank's process group (Open MPI's mpirun on ^C: SIGTERM, then SIGKILL at once) kills the application and the shim's pid the launcher knows, as bare, but not the shim's collection: perf finishes its output and rank.json is written; the writers' lock tells when
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed to start the rank in a process group of its own"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
cd "$tmp"
python3 - "$NUNATAK" "$NUNATAK_SOURCE_DIR/tests/fixtures/faults/perf_slow_flush.sh" <<'PY'
import fcntl, json, os, signal, subprocess, sys, time
nunatak, perf = sys.argv[1:3]
env = {"PATH": os.environ["PATH"], "HOME": os.getcwd(), "OMPI_COMM_WORLD_RANK": "0",
       "OMPI_COMM_WORLD_SIZE": "1", "OMPI_COMM_WORLD_LOCAL_RANK": "0"}
app = "touch ready; while :; do sleep 0.1; done"
# the rank as a launcher starts it: a process group of its own
shim = subprocess.Popen([nunatak, "rank-shim", "--directory", os.path.abspath("collect"),
                         "--perf", perf, "--", "sh", "-c", app],
                        env=env, preexec_fn=os.setpgrp, stdout=open("out.txt", "w"),
                        stderr=open("err.txt", "w"))
for _ in range(3000):  # bounded: the application is up
    if os.path.exists("ready"): break
    if shim.poll() is not None: sys.exit("FAIL: the shim ended before its application was up: %s" % open("err.txt").read())
    time.sleep(0.1)
else:
    sys.exit("FAIL: the application never started")
os.killpg(shim.pid, signal.SIGTERM)
os.killpg(shim.pid, signal.SIGKILL)
rc = shim.wait()
assert rc == -signal.SIGKILL, "the shim's launcher-facing pid must die by the SIGKILL, got %d" % rc
# nunatak run's wait: the writers' lock, free once every shim's collection ended
lock = os.path.join("collect", ".rank-writers")
assert os.path.exists(lock), "no writers' lock: %s" % os.listdir("collect")
fd = os.open(lock, os.O_RDWR)
signal.signal(signal.SIGALRM, lambda *a: sys.exit("FAIL: the collection did not end within 300 s"))
signal.alarm(300)
fcntl.flock(fd, fcntl.LOCK_EX)
signal.alarm(0)
r = json.load(open("collect/rank-0/rank.json"))
assert r["role"] == "sampler", r
# the application ended by the launcher's SIGTERM or SIGKILL, as it would
# bare (this perf, a shell, reports a signal as 128+N)
assert r["exit_code"] in (128 + signal.SIGTERM, 128 + signal.SIGKILL), r
assert open("collect/rank-0/perf.data").read().endswith("flushed\n"), "perf did not finish its output"
print("ok")
PY
echo "ok: a launcher's group kill ends the application and the shim's pid as bare; the collection finishes and rank.json is written"
