#!/bin/bash
# replay corpus workload-c-roofline: Zen 2 counter group (flops, dram_bytes) on a task-clock time base
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-roofline
grep -q "DRAM intensity" "$ERR" || fail "the DRAM intensity must be shown"
check_run '
counters = {r[0] for r in db.execute("select distinct counter from measurements")}
assert {"task-clock", "flops", "dram_bytes"} <= counters, counters
q = {r[0]: r[1] for r in db.execute("select counter, quality from measurements")}
assert q["dram_bytes"] == "estimated" and q["flops"] == "measured", q
assert rep["coverage"]["time_base"] == "task-clock"
h = rep["hotspots"][0]
assert h["name"] == "main", h["name"]
assert h["dram_intensity"]["quality"] == "estimated" and h["dram_intensity"]["value"] > 0
assert "demand fills only" in h["dram_intensity"]["reason"]
assert h["achieved"]["value"] > 0 and h["achieved"]["unit"] == "flop/s"
assert h["envelope_fraction"]["value"] is None
assert h["classification"] is None and h["classification_reason"]
'
