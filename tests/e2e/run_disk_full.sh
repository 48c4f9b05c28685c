#!/bin/bash
# nunatak run into a full file system (a 3 MB tmpfs under -o): the application runs once with its status, nunatak says what could not be written, and no half-written manifest is left (the one there parses)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/faulty" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c"
cd "$WORK"
mkdir full
if ! mount -t tmpfs -o size=3m tmpfs "$WORK/full" 2>/dev/null; then
	echo "skip: cannot mount a small tmpfs here (needs root and mount rights)"; exit 2
fi
trap 'umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT
# Fill it but for a few KB: the Run directory is created, little else fits.
dd if=/dev/zero of=full/filler bs=1k count=3000 2>/dev/null || true
set +e
"$NUNATAK" run -o "$WORK/full/run" -- ./faulty exit 9 > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" -eq 9 ] || fail "full disk: exit $rc, expected the application's 9"
grep -q "degraded \[pivot-unwritable\]: .*the file system is full" err.txt ||
	fail "full disk: nothing names the full file system"
# The manifest (small, written atomically) fits and says so; never half-written.
python3 - full/run/manifest.json <<'PY' || fail "a half-written manifest, or it does not name the full disk"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["run"]["exit_code"] == 9, m["run"]
assert "pivot-unwritable" in [d["name"] for d in m["degradations"]], m["degradations"]
assert "pivot" not in m["files"], m["files"]
# no pivot: the Run did not get through post-processing, and no remedy claims
# `nunatak report` can rebuild the page from it
assert m["run"].get("status") == "incomplete", m["run"]
for d in m["degradations"]:
    if d["name"] == "report-unavailable":
        assert "regenerates" not in d.get("remedy", ""), d
PY
ls full/run/.manifest*.tmp* 2>/dev/null && fail "temporary manifest left behind"
echo "ok: full file system reported, application status kept, no half-written manifest"
