#!/bin/bash
# replay corpus workload-c-debug: LLVM 19 attribution, one line-level Hotspot main
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-debug
grep -q "  main (line, workload.c:[0-9]*) - 99" "$ERR" || fail "main must hold ~99% at line level"
# The hottest line named by the summary and the payload is computed here on
# its own: each recorded sample's period summed per workload offset (the perf
# script), each offset mapped to its innermost line by the recorded
# llvm-symbolizer answer; the line with the most weight (and the most samples).
check_run '
assert [d["name"] for d in j["degradations"]] == ["ceilings-unavailable"], j["degradations"]
assert rep["coverage"]["time_base"] == "cycles"
assert [h["name"] for h in rep["hotspots"]] == ["main"]
h = rep["hotspots"][0]
assert h["resolution_level"] == "line" and h["share"]["value"] > 0.99, h
assert h["module"].endswith("/workload") and h["source_file"], h
assert h["attainable"]["reason"] == "the Machine carries no flops_dp or dram_bandwidth Ceiling"
weight, count = {}, {}
for mt in re.finditer(r"\d+\.\d+:\s+(\d+)\s+\S+:.*\(\S*/workload\+0x([0-9a-f]+)\)", script):
    off = int(mt.group(2), 16)
    weight[off] = weight.get(off, 0) + int(mt.group(1))
    count[off] = count.get(off, 0) + 1
sym = None
for f in sorted(glob.glob(os.path.join(entry, "invocations", "*.json"))):
    inv = json.load(open(f))
    if "llvm-symbolizer" in inv["argv"][0] and any(a.endswith("/workload") for a in inv["argv"]):
        sym = json.load(open(f[:-5] + ".stdout"))
line_w, line_n = {}, {}
for ans in sym:
    fr = ans["Symbol"][0]
    key = (os.path.basename(fr["FileName"]), fr["Line"])
    off = int(ans["Address"], 16)
    line_w[key] = line_w.get(key, 0) + weight.get(off, 0)
    line_n[key] = line_n.get(key, 0) + count.get(off, 0)
best = max(line_w, key=line_w.get)
assert best == max(line_n, key=line_n.get), (line_w, line_n)
err = open(os.path.join(os.path.dirname(jpath), "err.txt")).read()
assert "  main (line, %s:%d) - " % best in err, (best, err)
hl = h["hottest_line"]
assert (os.path.basename(hl["file"]), hl["line"]) == best, (hl, best)
top = max(h["lines"], key=lambda l: l["share"]["value"])
assert (os.path.basename(top["file"]), top["line"]) == best and abs(top["share"]["value"] - hl["share"]["value"]) < 1e-9, (top, hl)
assert abs(hl["share"]["value"] - line_w[best] / sum(line_w.values())) < 1e-6, (hl, line_w)
'
