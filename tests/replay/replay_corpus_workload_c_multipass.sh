#!/bin/bash
# replay corpus workload-c-multipass with --multi-pass: both passes (flops, memory) with fp call chains, the FLOP witness in each and its spread, a counter of both passes counted in its lowest, the top Hotspot's DRAM intensity bounded (pass 1 sampled the fills and recorded none)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-multipass --multi-pass
grep -q "multi-pass: 2 passes (flops, memory), witness replicated in each" "$ERR" || fail "no multi-pass announcement"
grep -q "collecting with perf 6.14.11 \[pass 1: memory\]: ./workload" "$ERR" || fail "pass 1 not run"
grep -q "call stacks: fp: frame pointers in" "$ERR" || fail "the recorded stack ladder was not replayed"
check_run '
counters = {r[0] for r in db.execute("select distinct counter from measurements")}
assert {"task-clock", "flops"} <= counters, counters
passes = {r[0] for r in db.execute("select distinct pass_index from measurements")}
assert passes == {0, 1}, passes
assert [p["index"] for p in m["passes"]] == [0, 1], m["passes"]
assert all(p["collectors"] == [{"tool": "perf", "version": "6.14.11"}] for p in m["passes"])
mp = m["multi_pass"]
assert mp["witness"] == "flops" and mp["witness_event"] == "fp_ret_sse_avx_ops.all", mp
# the witness totals, recomputed from the two recorded perf scripts
scripts = []
for f in sorted(glob.glob(os.path.join(entry, "invocations", "*.json"))):
    inv = json.load(open(f))
    if os.path.basename(inv["argv"][0]) == "perf" and inv["argv"][1] == "script":
        scripts.append(open(f[:-5] + ".stdout").read())
assert len(scripts) == 2
want = [4999999 * len(re.findall(r"\bfp_ret_sse_avx_ops\.all/period=4999999/u:", s)) for s in scripts]
assert [round(t) for t in mp["witness_totals"]] == want, (mp["witness_totals"], want)
sp = mp["witness_spread"]
assert sp["quality"] == "measured" and abs(sp["value"] - (max(want) - min(want)) / (sum(want) / 2)) < 1e-12, sp
assert rep["multi_pass"]["witness_spread"] == sp
# task-clock and flops were sampled in both passes: they count in pass 0
h = rep["hotspots"][0]
assert h["name"] == "main", h["name"]
# achieved FLOP/s: FLOPs of pass 0 over the time of pass 0, not both passes summed
f0 = db.execute("select sum(m.value) from measurements m join hotspots h on h.id = m.hotspot "
                "where h.name = \"main\" and m.counter = \"flops\" and m.pass_index = 0").fetchone()[0]
t0 = db.execute("select max(v) from (select sum(m.value) v from measurements m join hotspots h on h.id = m.hotspot "
                "where h.name = \"main\" and m.counter = \"task-clock\" and m.pass_index = 0 group by m.locus)").fetchone()[0]
assert abs(h["achieved"]["value"] - f0 / (t0 / 1e9)) / h["achieved"]["value"] < 1e-9, (h["achieved"], f0, t0)
# pass 1 asked for the DRAM fills and recorded no sample: a bound, never a zero
b = mp["dram_bound"]
assert b["pass"] == 1 and b["period"] == 100003 and b["hotspot"] == "main", b
main_flops = db.execute("select sum(m.value) from measurements m join hotspots h on h.id = m.hotspot "
                        "where h.name = \"main\" and m.counter = \"flops\" and m.pass_index = 0").fetchone()[0]
assert abs(b["dram_intensity_above"]["value"] - main_flops / (100003 * 64)) < 1e-9, b
assert b["dram_intensity_above"]["quality"] == "estimated" and "demand fills only" in b["dram_intensity_above"]["reason"]
# ... and the Hotspot carries that bound as its value (issue 24 item 7)
di = h["dram_intensity"]
assert di["bound"] == "lower" and di["quality"] == "estimated", di
assert abs(di["value"] - b["dram_intensity_above"]["value"]) / di["value"] < 1e-9, (di, b)
assert "a lower bound" in di["reason"] and "no dram_bytes raw counter" not in di["reason"], di
assert m["machine"]["cpu_model"] == "AMD EPYC 7702 64-Core Processor", m["machine"]["cpu_model"]
assert not [d for d in m["degradations"] if d["name"].startswith("passes-")], m["degradations"]
'
grep -q "main's DRAM intensity is above 82 flop/byte (estimated: demand fills only)" "$ERR" || fail "no DRAM bound line"
grep -q "^multi-pass: 2 passes; witness flops spread 0.00% (threshold 5%)" "$WORK/report.txt" ||
	fail "report does not say the witness spread"
