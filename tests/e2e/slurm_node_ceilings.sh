#!/bin/bash
# Ceilings per node on a real two-node Slurm cluster whose nodes differ (n2's slurmd pinned to one CPU: another Machine than n1 and the launch node): under `nunatak run -- srun -N 2 -n 2` without calibration, n1's rank uses the launch node's Ceilings (same Machine), n2's has none of its own and borrows them downgraded with the reason and the degradation node-ceilings-borrowed; after `srun -w n2 nunatak calibrate` the next Run places n2's rank against n2's own cached Ceilings (the values that calibration measured), without the degradation; with calibration allowed and n2's profile gone, n2 calibrates itself during the Run, once; the summary, the manifest and the payload say which node used which; the Run-wide placement (every rank's FLOPs together) is against the sum of the two nodes' Ceilings, said in the summary and the payload
cpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | cut -d, -f1 | cut -d- -f1)
[ "$(nproc)" -ge 2 ] && [ -n "$cpu" ] || {
	echo "skip: fewer than two CPUs here: two nodes cannot differ in their CPU sets"; exit 2; }
export NUNATAK_SLURM_N2_CPUS=$cpu
. "$NUNATAK_SOURCE_DIR/tests/e2e/slurm_lib.bash" examples/mpi/mpi_imbalance.c
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
perf record -q -o /dev/null -- true 2>/dev/null || {
	echo "skip: perf cannot sample here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid))"
	exit 2
}
fail=0

# run NAME [ENV...]: one Run of 2 ranks, one per node; the Run's --json report beside it
run() {
	local name=$1
	shift
	set +e
	timeout 900 env "$@" "$NUNATAK" run -o "$tmp/run-$name" -- srun -N 2 -n 2 --mpi=pmix "$tmp/prog_openmpi" 20 \
		>"$name.out" 2>"$name.err" </dev/null
	local rc=$?
	set -e
	[ "$rc" = 0 ] || { echo "FAIL: $name: nunatak run exited $rc"; cat "$name.err"; exit 1; }
	grep -q "^mpi_imbalance: 2 ranks" "$name.out" || { echo "FAIL: $name: the application's output is lost"; cat "$name.out"; exit 1; }
	"$NUNATAK" report --json "$tmp/run-$name" >"$name.json"
	grep -A3 "Ceilings per node" "$name.err" || true
}

# check NAME WANT [CALIBRATION]: n2's source is WANT (borrowed, own)
check() {
	python3 - "$tmp/run-$1/manifest.json" "$1.json" "$1.err" "$2" "$cpu" "${3:-}" "$1" <<'PY'
import json, sys
man, pay = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
err, want, cpu, cal = open(sys.argv[3]).read(), sys.argv[4], int(sys.argv[5]), sys.argv[6]
launch = man["machine"]
nodes = {n["node"]: n for n in man["nodes"]}
assert sorted(nodes) == ["n1", "n2"], man["nodes"]
n1, n2 = nodes["n1"], nodes["n2"]
assert n1["ranks"] == [0] and n2["ranks"] == [1], (n1["ranks"], n2["ranks"])
# n1 is the launch node's Machine (same CPU set, same hardware): its Ceilings
assert n1["identity"] == launch["identity"] and n1["ceilings_source"] == "launch", n1
assert n1["reason"] is None
lc = {c["name"]: c for c in launch["ceilings"] if not c["name"].startswith("network_")}
c1 = {c["name"]: c for c in n1["machine"]["ceilings"]}
assert c1 == lc, (c1, lc)
# n2 is another Machine: the one CPU its slurmd was pinned to
a2 = n2["machine"]["allocation"]
assert n2["identity"] != launch["identity"], n2["identity"]
assert a2["visible_cores"] == 1 and a2["affinity_mask"] == [cpu], a2
c2 = {c["name"]: c for c in n2["machine"]["ceilings"]}
assert not any(k.startswith("network_") for k in c2), c2
deg = [d for d in man["degradations"] if d["name"] == "node-ceilings-borrowed"]
if want == "borrowed":
    assert n2["ceilings_source"] == "borrowed", n2
    assert n2["reason"].startswith("node n2 (Machine " + n2["identity"]) and launch["identity"] in n2["reason"], n2["reason"]
    assert set(c2) == set(lc), (c2, lc)
    for k, c in c2.items():
        # the launch node's value, never called measured, with the reason first
        assert c["value"] == lc[k]["value"] or (c["value"] is None and lc[k]["value"] is None), (k, c, lc[k])
        assert c["quality"] != "measured" and c["reason"].startswith(n2["reason"]), (k, c)
    assert len(deg) == 1 and "rank 1 placed" in deg[0]["message"] and "-w n2" in deg[0]["remedy"], deg
    assert "degraded [node-ceilings-borrowed]" in err
    assert "borrowed from the launch node: node n2 (Machine" in err, "no summary line"
else:
    assert n2["ceilings_source"] == "own" and n2["reason"] is None, n2
    calj = json.load(open(cal))
    assert calj["machine"]["identity"] == n2["identity"], (calj["machine"]["identity"], n2["identity"])
    mine = {c["name"]: (c["value"], c["quality"]) for c in calj["machine"]["ceilings"]}
    assert {k: (c["value"], c["quality"]) for k, c in c2.items()} == mine, (c2, mine)
    assert not deg, deg
    assert "its own Machine's cached profile" in err, "no summary line"
    # calibrated by its rank in this Run (incal), or before it (srun calibrate)
    incal = sys.argv[7] == "incal"
    assert n2["calibrated"] == incal and not n1["calibrated"], (n1["calibrated"], n2["calibrated"])
    assert ("calibration: node n2, another Machine than this one, calibrated itself" in err) == incal
# the payload: each node's Machine and Ceilings in the Nodes rows; a rank's
# placement row names its node and the Ceilings it was placed against
rows = {r["node"]: r for r in pay["ranks"]["nodes"]["rows"]}
m2 = rows["n2"]["machines"]
assert len(m2) == 1 and m2[0]["identity"] == n2["identity"] and m2[0]["ceilings_source"] == want, m2
assert m2[0]["visible_cores"] == 1, m2
bw = m2[0]["ceilings"]["dram_bandwidth"]
if "dram_bandwidth" in c2:
    assert bw["quality"] == c2["dram_bandwidth"]["quality"], (bw, c2)
placed = [r for h in pay["hotspots"] for r in h["ranks"]]
for r in placed:
    n = n1 if r["rank"] == 0 else n2
    assert r["node"] == n["node"], r
    f = r["ceilings"]["flops_dp"]
    cf = {c["name"]: c for c in n["machine"]["ceilings"]}.get("flops_dp")
    if cf and cf["value"]:
        assert f["value"] == cf["value"] and f["quality"] == cf["quality"], (r, cf)
# the Run-wide placement (every rank's FLOPs together) against the sum of
# the two nodes' Ceilings, never the launch node's alone
rf = pay["roofline"]
assert rf["basis"] == "the sum of the Ceilings of its 2 nodes (n1, n2)" and rf["nodes"] == 2, rf
sums = {c["name"]: c for c in rf["ceilings"]}
for k in ("flops_dp", "dram_bandwidth"):
    if any(k not in c or not c[k]["value"] or c[k]["quality"] == "unavailable" for c in (c1, c2)):
        assert k not in sums and rf["missing"], (k, rf)
        continue
    total = c1[k]["value"] + c2[k]["value"]
    assert abs(sums[k]["value"] - total) <= 1e-9 * total, (k, sums[k], total)
    worst = "estimated" if "estimated" in (c1[k]["quality"], c2[k]["quality"]) else "measured"
    assert sums[k]["quality"] == worst, (k, sums[k], c1[k], c2[k])
    if want == "borrowed":
        assert n2["reason"] in sums[k]["reason"], (k, sums[k])
assert "roofline of the whole Run (every rank's FLOPs together): against the sum of the Ceilings of its 2 nodes (n1, n2)" in err, "no summary line"
print(f"n1 {n1['ceilings_source']} (Machine {n1['identity']}), n2 {n2['ceilings_source']} "
      f"(Machine {n2['identity']}, CPU {cpu}); {len(placed)} rank placement rows checked")
PY
}

run borrowed
check borrowed borrowed || fail=1

# n2 calibrated once, under its own CPU set (the job's binding there)
set +e
timeout 900 srun -N 1 -n 1 -w n2 "$NUNATAK" calibrate --json >n2-cal.json 2>n2-cal.err </dev/null
rc=$?
set -e
[ "$rc" = 0 ] || { echo "FAIL: srun -w n2 nunatak calibrate exited $rc"; cat n2-cal.err; exit 1; }
run own
check own own "$tmp/n2-cal.json" || fail=1

# n2's profile gone, calibration allowed: the launch node calibrates its own
# Machine before the application, n2's rank its node's after its own
id2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"]["identity"])' n2-cal.json)
rm -f "$XDG_CACHE_HOME/nunatak/machines/$id2.json"
run incal -u NUNATAK_NO_CALIBRATE
[ -s "$XDG_CACHE_HOME/nunatak/machines/$id2.json" ] || { echo "FAIL: n2 was not calibrated during the Run"; cat incal.err; fail=1; }
check incal own "$XDG_CACHE_HOME/nunatak/machines/$id2.json" || fail=1
[ "$fail" = 0 ] || { cat borrowed.err own.err incal.err; exit 1; }
echo "ok: each rank placed against its own node's Ceilings; a node without them borrowed the launch node's, estimated, said so, until calibrated there"
