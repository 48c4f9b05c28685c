#!/bin/bash
# replay corpus workload-c (no LLVM): unresolved module+offset Hotspots, llvm-missing
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c
grep -q "degraded \[llvm-missing\]" "$ERR" || fail "llvm-missing must be announced"
check_run '
assert j["resolved_hotspots"] == 0, j
assert "llvm-missing" in [d["name"] for d in j["degradations"]]
assert rep["coverage"]["time_base"] == "cycles"
assert len(rep["hotspots"]) == 4, [h["name"] for h in rep["hotspots"]]
assert rep["hotspots"][0]["name"] == "workload+0x10d4", rep["hotspots"][0]["name"]
assert all(h["resolution_level"] == "unresolved" for h in rep["hotspots"])
assert abs(rep["unresolved"]["share"]["value"] - 1.0) < 1e-9
'
