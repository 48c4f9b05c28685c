#!/bin/bash
# A Run without Ceilings carries the named degradation ceilings-unavailable, saying why (--no-calibrate, NUNATAK_NO_CALIBRATE, calibration.on_first_run), so --strict trips on it
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*" >&2; cat "$tmp"/err*.txt >&2 2>/dev/null; exit 1; }
check() { # $1 json, $2 expected reason fragment
	python3 - "$1" "$2" <<'PY' || fail "degradation in $1"
import json, sys
d = json.load(open(sys.argv[1]))
g = [x for x in d["degradations"] if x["name"] == "ceilings-unavailable"]
assert len(g) == 1, d["degradations"]
assert g[0]["message"].startswith("the Machine carries no "), g[0]
assert g[0]["message"].endswith(sys.argv[2]), (g[0]["message"], sys.argv[2])
assert "nunatak calibrate" in g[0]["remedy"], g[0]
PY
}
unset NUNATAK_NO_CALIBRATE
"$NUNATAK" run -q --no-calibrate --json -- true > a.json 2> err-a.txt || fail "run --no-calibrate exited $?"
check a.json "calibration skipped by --no-calibrate"
grep -q "degraded \[ceilings-unavailable\]" err-a.txt || fail "not announced"
NUNATAK_NO_CALIBRATE=1 "$NUNATAK" run -q --json -- true > b.json 2> err-b.txt || fail "exit $?"
check b.json "calibration skipped by NUNATAK_NO_CALIBRATE"
printf '[calibration]\non_first_run = false\n' > nunatak.toml
"$NUNATAK" run -q --json -- true > c.json 2> err-c.txt || fail "exit $?"
check c.json "calibration skipped by calibration.on_first_run = false"
rm nunatak.toml
# --strict: the degradation is known before launch, so nothing runs.
rc=0
"$NUNATAK" run -q --strict --no-calibrate -- touch ran > /dev/null 2> err-d.txt || rc=$?
[ "$rc" = 121 ] || fail "--strict --no-calibrate exited $rc"
[ ! -e ran ] || fail "--strict ran the application"
# Nothing was calibrated, so nothing was cached.
[ ! -d "$tmp/cache/nunatak/machines" ] || [ -z "$(ls "$tmp/cache/nunatak/machines")" ] ||
	fail "a Run that skipped calibration wrote the cache"
echo ok
