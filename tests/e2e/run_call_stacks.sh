#!/bin/bash
# Call stacks with real perf: a leaf called 70/30 from caller_a and caller_b, built with frame pointers: the ladder picks fp, --call-graph fp and dwarf (at the asked 997 Hz) both give the callers within 5 points (report payload and summary), the collapsed export keeps the ratio; stacks never split the Hotspot
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$WORK/callers" \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/collect/callers.c"
cd "$WORK"
for mode in ladder fp dwarf; do
	opt=()
	[ "$mode" = ladder ] || opt=(--call-graph "$mode")
	# ~1 s of CPU at 997 Hz, dwarf included (it keeps the asked rate)
	n=60000000
	"$NUNATAK" run -o "$WORK/run-$mode" "${opt[@]}" -- ./callers $n \
		>"$WORK/app-$mode.out" 2>"$WORK/err-$mode.txt" || fail "$mode: nunatak run failed"
	"$NUNATAK" report --json "$WORK/run-$mode" >"$WORK/rep-$mode.json" 2>/dev/null
	"$NUNATAK" report -f collapsed -o "$WORK/$mode.collapsed" "$WORK/run-$mode" 2>/dev/null
	python3 - "$mode" "$WORK" <<'PY' || fail "$mode: assertions"
import json, sys
mode, w = sys.argv[1], sys.argv[2]
rep = json.load(open(f"{w}/rep-{mode}.json"))
leaf = [h for h in rep["hotspots"] if h["name"] == "leaf"]
assert len(leaf) == 1, "stacks entered Hotspot identity: %d leaf Hotspots" % len(leaf)
callers = {c["name"]: c["share"]["value"] for c in leaf[0]["callers"]}
for name, want in (("caller_a", 0.70), ("caller_b", 0.30)):
    got = callers.get(name, 0)
    assert abs(got - want) <= 0.05, (mode, name, got, callers)
assert leaf[0]["inclusive"]["value"] > 0.9, leaf[0]["inclusive"]
# the Run states the stack mode, its rate and (dwarf) the stack copy's size
cfg = json.load(open(f"{w}/run-{mode}/manifest.json"))["provenance"]["effective_configuration"]
assert cfg["stacks.call_graph"] == ("fp" if mode == "ladder" else mode), cfg
assert cfg["stacks.sampling_frequency"] == 997, cfg
assert cfg.get("stacks.dwarf_stack_copy_bytes") == (4096 if mode == "dwarf" else None), cfg
# the collapsed export: leaf's time under each caller keeps the ratio
per = {"caller_a": 0, "caller_b": 0}
for line in open(f"{w}/{mode}.collapsed"):
    path, v = line.rsplit(" ", 1)
    frames = path.split(";")
    if "leaf" in frames:
        for c in per:
            if c in frames:
                per[c] += int(v)
tot = sum(per.values())
assert tot > 0 and abs(per["caller_a"] / tot - 0.70) <= 0.05, (mode, per)
print(f"{mode}: caller_a {callers['caller_a']:.3f} caller_b {callers['caller_b']:.3f}, "
      f"collapsed {per['caller_a'] / tot:.3f}")
PY
	grep -q "called from \`caller_a\` [67][0-9] %" "$WORK/err-$mode.txt" || fail "$mode: summary has no callers"
done
grep -q "call stacks: fp: frame pointers in" "$WORK/err-ladder.txt" || fail "the ladder did not pick fp"
grep -q "stacks unwound from 4096-byte copies of the user stack at 997 Hz" "$WORK/err-dwarf.txt" ||
	fail "dwarf did not keep the asked rate with a bounded stack copy"
grep -q -- "--call-graph dwarf" "$WORK/err-dwarf.txt" || fail "dwarf not announced"
! grep -q "perf-script-no-offset" "$WORK/err-dwarf.txt" || fail "dwarf frames lost their offsets"
echo ok
