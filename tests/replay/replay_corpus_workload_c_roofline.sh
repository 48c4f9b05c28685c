#!/bin/bash
# replay corpus workload-c-roofline: recorded calibration + Zen 2 counter group give the full placement of main, checked against values computed here
CALIBRATE=1
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-roofline
grep -q "DRAM intensity" "$ERR" || fail "the DRAM intensity must be shown"
check_run '
counters = {r[0] for r in db.execute("select distinct counter from measurements")}
assert {"task-clock", "flops", "dram_bytes"} <= counters, counters
q = {r[0]: r[1] for r in db.execute("select counter, quality from measurements")}
assert q["dram_bytes"] == "estimated" and q["flops"] == "measured", q
assert rep["coverage"]["time_base"] == "task-clock"
assert j["degradations"] == [], j["degradations"]
# --- by hand, from the recorded outputs --------------------------------
kern = {}
for f in sorted(glob.glob(os.path.join(entry, "invocations", "*.json"))):
    inv = json.load(open(f))
    if os.path.basename(inv["argv"][0]) == "kernel-v0":
        kern[inv["argv"][1]] = max(float(l.split()[2]) for l in open(f[:-5] + ".stdout") if l.startswith("rep "))
bw, peak = kern["triad"], kern["fma_dp"]
assert (bw, peak) == (1.035003e11, 1.171261e12), kern
line = re.compile(r"^\s*\S+\s+\d+/\d+\s+[\d.]+:\s+(\d+)\s+(\S+?):\s+[0-9a-f]+\s+(\S+)\s+\((.*)\)$")
tot_clock = clock = flops = fills = 0.0
n = 0
for l in script.splitlines():
    mm = line.match(l)
    if not mm:
        continue
    period, event, sym, dso = int(mm.group(1)), mm.group(2).split("/")[0].split(":")[0], mm.group(3), mm.group(4)
    main = sym.startswith("main+") and "/workload+" in dso
    if event == "task-clock":
        tot_clock += period
    if not main:
        continue
    if event == "task-clock":
        clock += period
        n += 1
    elif event == "fp_ret_sse_avx_ops.all":
        flops += period
    elif event.startswith("ls_refills_from_sys.ls_mabresp_"):
        fills += period
I = flops / (fills * 64)
achieved = flops / (clock / 1e9)
attainable = min(peak, bw * I)
fraction = achieved / attainable
def close(a, b):
    return abs(a - b) <= 1e-9 * abs(b)
h = rep["hotspots"][0]
assert h["name"] == "main", h["name"]
assert h["samples"] == n, (h["samples"], n)
assert close(h["share"]["value"], clock / tot_clock), (h["share"], clock / tot_clock)
assert close(h["dram_intensity"]["value"], I), (h["dram_intensity"], I)
assert close(h["achieved"]["value"], achieved), (h["achieved"], achieved)
assert close(h["attainable"]["value"], attainable), (h["attainable"], attainable)
assert close(h["envelope_fraction"]["value"], fraction), (h["envelope_fraction"], fraction)
assert close(h["relative_error"]["value"], 1 / n ** 0.5), h["relative_error"]
# Memory-side: the diagonal is below the roof at this intensity.
assert bw * I < peak and fraction < 0.5
assert h["classification"] == "latency-bound" and h["classification_reason"] is None, h
# Qualities: the worst of the inputs, each downgrade reason once.
prec = "FLOPs not split by precision on this microarchitecture; compared against the double-precision peak"
fills_r = "demand fills only: hardware-prefetched traffic is not counted"
for k in ("dram_intensity", "attainable", "envelope_fraction"):
    assert h[k]["quality"] == "estimated", (k, h[k])
    parts = h[k]["reason"].split("; ")
    assert len(parts) == len(set(parts)), (k, h[k]["reason"])
    assert fills_r in h[k]["reason"] and prec in h[k]["reason"], (k, h[k]["reason"])
assert h["achieved"]["quality"] == "estimated" and h["achieved"]["reason"] == prec, h["achieved"]
assert h["share"]["quality"] == "measured" and h["share"]["reason"] is None
assert h["attainable"]["lineage"] == ["flops_dp", "dram_bandwidth", "dram_intensity"], h["attainable"]
assert h["attainable"]["formula"] == "min(flops_dp, dram_bandwidth * dram_intensity)"
# The terminal summary says the same numbers.
err = open(os.path.join(os.path.dirname(jpath), "err.txt")).read()
def si(v):
    for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if v >= f:
            return "%.3g %sflop/s" % (v / f, p)
want = "achieved %s of %s attainable: %.0f%% of the envelope" % (si(achieved), si(attainable), 100 * fraction)
assert want in err, (want, err)
assert ("DRAM intensity %.3g flop/byte (estimated)" % I) in err, I
assert "main (line, workload.c:7) - 100.0% of the sampled time" in err and "latency-bound" in err
'
