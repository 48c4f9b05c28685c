#!/bin/bash
# the bundled Fortran example runs long enough under `nunatak run` for a Hotspot above the statistical floor, its hot loop (subroutine sweep) named, its regions traced into the Run
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
ex="$NUNATAK_BUILD_DIR/examples/fortran/example_heat1d"
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	echo "skip: the Fortran example is not built under the sanitizers (gcc's ASan runtime beside clang's)"; exit 2
fi
command -v gfortran >/dev/null || { echo "skip: gfortran not installed (scripts/deps.sh installs it)"; exit 2; }
[ -x "$ex" ] || { echo "FAIL: gfortran is installed but $ex was not built (reconfigure)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
"$NUNATAK" run -q -o "$tmp/run" -- "$ex" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: the run"; exit 1; }
grep -q "heat1d: u(1)" "$tmp/out" || { echo "FAIL: the example's output did not pass through"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/p.json"
python3 - "$tmp/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
names = [h["name"] for h in p["hotspots"]]
assert names, ("no Hotspot above the floor", p["coverage"], p.get("floor_samples"))
assert any(n.startswith("sweep") for n in names), names
assert p["run"]["name"] == "example_heat1d", p["run"]["name"]
paths = {r["path"] for r in p.get("regions") or []}
assert any(x.endswith("update") for x in paths), paths
PY
echo "ok: a Hotspot in the Fortran example"
