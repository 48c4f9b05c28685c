#!/bin/bash
# replay corpus workload-c-clang: LLVM 19 attribution, one line-level Hotspot main
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-clang
grep -q "  main (line, workload.c:[0-9]*) - 99" "$ERR" || fail "main must hold ~99% at line level"
check_run '
assert [d["name"] for d in j["degradations"]] == ["ceilings-unavailable"], j["degradations"]
assert rep["coverage"]["time_base"] == "cycles"
assert [h["name"] for h in rep["hotspots"]] == ["main"]
h = rep["hotspots"][0]
assert h["resolution_level"] == "line" and h["share"]["value"] > 0.99, h
assert h["module"].endswith("/workload") and h["source_file"], h
assert h["attainable"]["reason"] == "the Machine carries no flops_dp or dram_bandwidth Ceiling"
'
