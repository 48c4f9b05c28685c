#!/bin/bash
# replay corpus workload-c-stacks: fp call chains (callers, inclusive time) and the FLOP witness
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-stacks
check_run '
counters = {r[0] for r in db.execute("select distinct counter from measurements")}
assert {"task-clock", "flops"} <= counters, counters
assert rep["coverage"]["time_base"] == "task-clock"
assert rep["hotspots"][0]["name"] == "main"
assert m["machine"]["cpu_model"] == "AMD EPYC 7702 64-Core Processor", m["machine"]["cpu_model"]
nstacks = db.execute("select count(*) from stacks").fetchone()[0]
assert nstacks > 0, "fp call chains were not ingested"
h = rep["hotspots"][0]
assert h["callers"] and h["callers"][0]["name"] == "__libc_start_call_main", h["callers"]
assert abs(sum(c["share"]["value"] for c in h["callers"]) - 1.0) < 1e-9, h["callers"]
assert h["inclusive"]["quality"] == "measured" and 0.99 < h["inclusive"]["value"] <= 1.0, h["inclusive"]
'
