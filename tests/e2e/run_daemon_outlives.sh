#!/bin/bash
# an application that leaves a daemon behind: nunatak does not wait for it nor stop it, keeps the application's status, and says so (application-outlived naming the process); an application that leaves nothing gets no such word
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
command -v setsid >/dev/null || { echo "skip: setsid (util-linux) missing"; exit 2; }
cd "$WORK"
trap 'if [ -s "$WORK/daemon.pid" ]; then kill "$(cat "$WORK/daemon.pid")" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
cat > app.sh <<'SH'
#!/bin/sh
# the daemon exists (forked) before the application exits
setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' > /dev/null 2>&1 < /dev/null &
exit 4
SH
chmod +x app.sh
set +e
"$NUNATAK" run -o "$WORK/r1" -- ./app.sh > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" -eq 4 ] || fail "exit $rc, the application's is 4"
for _ in $(seq 300); do [ -s daemon.pid ] && break; sleep 0.1; done
[ -s daemon.pid ] || fail "the daemon never started"
kill -0 "$(cat daemon.pid)" 2>/dev/null || fail "the daemon was stopped"
check() { # run-dir expected(yes/no)
	python3 - "$@" <<'PY'
import json, os, re, sys
m = json.load(open(os.path.join(sys.argv[1], "manifest.json")))
d = [d for d in m["degradations"] if d["name"] == "application-outlived"]
if sys.argv[2] == "yes":
    # named as it was when the application ended: setsid, sh or sleep, or
    # still app.sh's fork on a loaded machine (seen as nobody under ASan)
    assert d and "outlived it" in d[0]["message"] and \
        re.search(r"\(pid [0-9]+ `(setsid|sh|sleep|app\.sh)`\)", d[0]["message"]), m["degradations"]
else:
    assert not d, d
PY
}
check "$WORK/r1" yes || fail "the daemon is not mentioned"
grep -q "degraded \[application-outlived\]" err.txt || fail "not said on the terminal"
kill "$(cat daemon.pid)"
rm -f daemon.pid
# The control: nothing left behind, nothing said.
printf '#!/bin/sh\nexit 4\n' > plain.sh
chmod +x plain.sh
set +e
"$NUNATAK" run -o "$WORK/r2" -- ./plain.sh > out2.txt 2> err2.txt
rc=$?
set -e
[ "$rc" -eq 4 ] || fail "plain: exit $rc"
check "$WORK/r2" no || fail "a daemon reported where there is none"
echo "ok: a daemon left by the application is named, not waited for, not stopped"
