#!/bin/bash
# The scale bench's smoke run (issue 22 item 8): bench/scale/run.sh 130 finishes a synthetic 130-rank Run (3 nodes of up to 64 ranks, their 3 local rank 0 sampled from a real recording, 127 counted, every rank an MPI profile with partners) and prints its figures line; the Run holds every rank counted or sampled, on its node, with the point-to-point matrix of all 130 and the collectives' estimated one (world and per-node communicators); the counted-only ranks' rows omit app_ns and sys_ns
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set +e
SCALE_KEEP="$tmp/run" bash "$NUNATAK_SOURCE_DIR/bench/scale/run.sh" 130 </dev/null >"$tmp/out" 2>&1
rc=$?
set -e
cat "$tmp/out"
[ "$rc" = 2 ] && grep -q "^skip: " "$tmp/out" && exit 2
[ "$rc" = 0 ] || { echo "bench/scale/run.sh failed ($rc)"; exit 1; }
tail -n 1 "$tmp/out" | grep -qE '^ranks 130 finish_s [0-9]+\.[0-9]+ rss_mb [0-9]+ page_bytes [0-9]+$' || {
	echo "the last line is not the figures line"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/payload.json"
python3 - "$tmp/payload.json" <<'PY'
import json, sys
payload = json.load(open(sys.argv[1]))
r = payload["ranks"]
# 127 counting-only ranks: the payload lists 64 of them and says which (a
# 4096-rank page stays small), the summary's figures cover them all
tb = payload["time_budget"]
assert tb["counted_ranks_total"] == 127 and len(tb["counted_ranks"]) == 64, (tb["counted_ranks_total"], len(tb["counted_ranks"]))
assert "largest off-CPU share" in tb["counted_ranks_rule"], tb["counted_ranks_rule"]
rows = r["rows"]
assert len(rows) == 130 and r["world_size"] == 130, (len(rows), r["world_size"])
assert r["missing"] == [], r["missing"]
sampled = sorted(x["rank"] for x in rows if x["rank"] not in r["unsampled"])
assert sampled == [0, 64, 128], sampled
# a counted-only rank's row omits app_ns and sys_ns (unavailable: no samples;
# docs/mpi.md), a megabyte of the 4096-rank page; a sampled one has them
for x in rows:
    if x["rank"] in r["unsampled"]:
        assert "app_ns" not in x and "sys_ns" not in x and x["counted"], x
    else:
        assert x["app_ns"]["quality"] == x["sys_ns"]["quality"] == "measured", x
nodes = {n["node"]: n["ranks"] for n in r["nodes"]["rows"]}
assert sorted(nodes) == ["n0000", "n0001", "n0002"] and nodes["n0002"] == [128, 129], nodes
m = r["comm_matrix"]
assert (m["ranks"], m["ranks_reporting"], m["bin"], m["bins"]) == (130, 130, 3, 44), m
# partners r +- 1 and r +- 64: 4 per rank but where they coincide
assert m["messages"] == 20 * sum(len({(k + 1) % 130, (k - 1) % 130, (k + 64) % 130, (k - 64) % 130} - {k}) for k in range(130)), m["messages"]
# collectives, estimated and apart: world Allreduce (80 kB a pair), Bcast from
# rank 0 (41 kB to each), Barrier; each node's Allreduce (400 kB a pair)
c = m["collectives"]
assert c["quality"] == "estimated" and (c["ranks_reporting"], c["bin"], c["bins"]) == (130, 3, 44), c
sizes = [64, 64, 2]
want = 80000 * 130 * 129 + 40960 * 129 + sum(400000 * k * (k - 1) for k in sizes)
assert c["bytes"]["value"] == want and c["bytes_by_pattern"]["one-to-all"] == 40960 * 129, (c["bytes"], want)
assert sum(x[2] for x in c["cells"]) == want, "cells do not add up to the total"
assert sorted(g["members"] for g in c["groups"] if g["function"] == "MPI_Allreduce") == ["0-129", "0-63", "128-129", "64-127"], c["groups"]
print("ok: 130 ranks, 3 sampled, 3 nodes, %d pairs, %d collective bytes" % (m["messages"], want))
PY
