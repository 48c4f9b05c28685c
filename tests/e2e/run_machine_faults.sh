#!/bin/bash
# nunatak run when the machine misbehaves (perf missing from PATH, perf blocked, perf killed mid-run, an unwritable cache, two Runs at once in one directory, a calibration kernel that does not build): each degrades with a named reason, the application runs once with its status passed through, and the Run is complete
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
F="$NUNATAK_SOURCE_DIR/tests/fixtures/faults"
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/faulty" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c"
cd "$WORK"

# complete DIR EXIT DEGRADATION [TEXT]: a complete Run that names the degradation.
complete() {
	python3 - "$@" <<'PY' || fail "Run $1: not complete or no named reason"
import json, os, sqlite3, sys
run, code, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = sys.argv[4] if len(sys.argv) > 4 else ""
m = json.load(open(os.path.join(run, "manifest.json")))
assert m["run"]["exit_code"] == code and m["run"]["status"] == "complete", m["run"]
d = [x for x in m["degradations"] if x["name"] == name]
assert d, (name, [x["name"] for x in m["degradations"]])
assert text in d[0]["message"], (text, d[0])
assert d[0]["remedy"], d[0]
assert "pivot" in m["files"], m["files"]
sqlite3.connect(os.path.join(run, "pivot.sqlite")).execute("select count(*) from hotspots").fetchone()
PY
}
RC=0
runrc() { # stdout-file stderr-file command...: its exit status into RC
	local o=$1 e=$2
	shift 2
	set +e
	"$@" > "$o" 2> "$e"
	RC=$?
	set -e
}

# perf missing: a PATH without perf, --collector perf (auto would stand in
# with the preload sampler: tests/e2e/run_preload.sh).
mkdir nopath
runrc out.txt err-noperf.txt env PATH="$WORK/nopath" "$NUNATAK" run --collector perf -o "$WORK/r-noperf" -- ./faulty exit 6
[ "$RC" -eq 6 ] || fail "perf missing: exit $RC, expected 6"
complete r-noperf 6 cpu-collection-unavailable

# perf blocked (perf_event_paranoid=3 stand-in).
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/collect/perf_paranoid3.sh" > nunatak.toml
runrc out.txt err-blocked.txt "$NUNATAK" run --collector perf -o "$WORK/r-blocked" -- ./faulty exit 4
[ "$RC" -eq 4 ] || fail "perf blocked: exit $RC, expected 4"
grep -q "perf_event_paranoid" err-blocked.txt || fail "perf blocked: the reason is not named"
python3 - r-blocked <<'PY' || fail "perf blocked: no named degradation"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
names = [d["name"] for d in m["degradations"]]
assert {"cpu-collection-failed", "cpu-collection-unavailable"} & set(names), names
PY

# perf killed (SIGKILL) while the application runs: the application carries
# on, its status is the Run's, and nunatak waits for it.
printf '[tools]\nperf = "%s/perf_killed.sh"\n' "$F" > nunatak.toml
printf '#!/bin/sh\nsleep 1\necho finished > app-finished\nexit 5\n' > app.sh
chmod +x app.sh
runrc out.txt err-perfkilled.txt "$NUNATAK" run --collector perf -o "$WORK/r-perfkilled" -- ./app.sh
[ "$RC" -eq 5 ] || fail "perf killed: exit $RC, expected the application's 5"
[ -e app-finished ] || fail "perf killed: nunatak returned before the application finished"
complete r-perfkilled 5 cpu-collection-interrupted "perf was killed by SIGKILL"
rm -f nunatak.toml

# An unwritable cache (a path through a regular file), on a first Run that
# wants to calibrate: the Run goes on, the Ceilings are named unavailable.
touch not-a-dir
runrc out.txt err-cache.txt env -u NUNATAK_NO_CALIBRATE XDG_CACHE_HOME="$WORK/not-a-dir/cache" "$NUNATAK" run -o "$WORK/r-cache" -- ./faulty exit 0
[ "$RC" -eq 0 ] || fail "unwritable cache: exit $RC (a cache must not refuse the Run)"
complete r-cache 0 ceilings-unavailable "Not a directory"

# The calibration kernel does not build (cc answers --version, then fails).
printf '[tools]\ncc = "%s/cc_broken.sh"\n' "$F" > nunatak.toml
runrc out.txt err-cc.txt env -u NUNATAK_NO_CALIBRATE XDG_CACHE_HOME="$WORK/cache-cc" "$NUNATAK" run -o "$WORK/r-cc" -- ./faulty exit 0
[ "$RC" -eq 0 ] || fail "broken cc: exit $RC"
complete r-cc 0 ceilings-unavailable "the calibration kernel did not build"
grep -q "internal compiler error" err-cc.txt || fail "broken cc: the compiler's own message is not shown"
rm -f nunatak.toml

# Two Runs at once in one directory: two distinct Run directories, both complete.
"$NUNATAK" run -- ./faulty exit 0 > out1.txt 2> err-two1.txt &
P1=$!
"$NUNATAK" run -- ./faulty exit 0 > out2.txt 2> err-two2.txt &
P2=$!
wait $P1 || fail "the first of two concurrent Runs failed"
wait $P2 || fail "the second of two concurrent Runs failed"
[ "$(ls -d .nunatak/faulty-* | wc -l)" -eq 2 ] || fail "two concurrent Runs did not get two directories: $(ls .nunatak)"
for d in .nunatak/faulty-*; do
	python3 - "$d" <<'PY' || fail "concurrent Run $d is corrupted"
import json, os, sqlite3, sys
m = json.load(open(os.path.join(sys.argv[1], "manifest.json")))
assert m["run"]["status"] == "complete" and m["run"]["exit_code"] == 0, m["run"]
assert "pivot" in m["files"], m["files"]
sqlite3.connect(os.path.join(sys.argv[1], "pivot.sqlite")).execute("pragma integrity_check").fetchone()
PY
done
[ "$(grep -h '^.*Run: ' err-two1.txt err-two2.txt | sort -u | wc -l)" -eq 2 ] || fail "both Runs claim one directory"
echo "ok: perf missing, blocked, killed; unwritable cache; broken cc; two at once"
