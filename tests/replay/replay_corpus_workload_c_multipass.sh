#!/bin/bash
# replay corpus workload-c-multipass: first pass with fp call chains and the FLOP witness
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-multipass
check_run '
counters = {r[0] for r in db.execute("select distinct counter from measurements")}
assert {"task-clock", "flops"} <= counters, counters
assert rep["coverage"]["time_base"] == "task-clock"
assert rep["hotspots"][0]["name"] == "main"
assert m["machine"]["cpu_model"] == "AMD EPYC 7702 64-Core Processor", m["machine"]["cpu_model"]
'
