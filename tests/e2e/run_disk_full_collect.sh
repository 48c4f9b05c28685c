#!/bin/bash
# A file system that fills up while the application runs (the application fills it; perf's perf.data is on it): nunatak exits with the application's status (9), a manifest is written on the space kept for it (status complete when the pivot fitted in the space given back, else incomplete with pivot-unwritable; the application's outcome), and the cause is named (the full file system), never perf's version
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/faulty" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c"
cd "$WORK"
mkdir full
if ! mount -t tmpfs -o size=6m tmpfs "$WORK/full" 2>/dev/null; then
	echo "skip: cannot mount a small tmpfs here (needs root and mount rights)"; exit 2
fi
trap 'umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT
# The application: burns, fills the file system, burns again, exits 9.
cat > filler.sh <<'SH'
#!/bin/sh
./faulty exit 0
dd if=/dev/zero of=full/appdata bs=64k 2>/dev/null
./faulty exit 0
exit 9
SH
chmod +x filler.sh
set +e
"$NUNATAK" run -o "$WORK/full/run" -- ./filler.sh > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" -eq 9 ] || fail "disk filled during collection: exit $rc, expected the application's 9"
[ -f full/appdata ] || fail "the application did not run"
python3 - full/run/manifest.json <<'PY' || fail "no sound manifest, or it misleads"
import json, os, sys
m = json.load(open(sys.argv[1]))
r = m["run"]
# complete when every stage ran: the pivot and the page fitted in the space
# given back once the application ended (a small pivot takes 4 kB pages);
# incomplete when the pivot could not be written, said as pivot-unwritable.
pivot = os.path.join(os.path.dirname(sys.argv[1]), "pivot.sqlite")
listed = "pivot" in m.get("files", {})
assert r["exit_code"] == 9, r
assert listed == os.path.isfile(pivot), (m.get("files"), os.listdir(os.path.dirname(sys.argv[1])))
if listed:
    assert r["status"] == "complete", r
else:
    assert r["status"] == "incomplete", r
    assert "pivot-unwritable" in {d["name"] for d in m["degradations"]}, m["degradations"]
assert "exited with 9" in r["outcome"], r
deg = {d["name"]: d for d in m["degradations"]}
for d in deg.values():
    assert "perf matching this kernel" not in d.get("remedy", ""), d
# perf ran and stopped on the full disk: said so, with the file system
if "cpu-collection-interrupted" in deg:
    assert "is full" in deg["cpu-collection-interrupted"]["message"], deg
PY
[ ! -e full/run/.nunatak-space-reserve ] || fail "the space reserve was left in the Run"
ls full/run/.manifest*.tmp* 2>/dev/null && fail "temporary manifest left behind"
echo "ok: a disk filled during collection: status 9 kept, manifest written, cause named"
