#!/bin/bash
# report over a replayed Run with call stacks whose time-base values are withheld (NULL, unavailable): the terminal prints no share or time as 0, says unavailable, keeps the callers' real shares, labels sampled CPU time; the payload's numbers all carry Quality or are documented raw counts
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c-stacks
(cd "$WORK" && "$NUNATAK" report "$RUN" >"$WORK/before.txt" 2>>"$WORK/err.txt") || fail "report failed"
grep -q "^summary: .* samples of task-clock over [0-9.]* s of sampled CPU time)" "$WORK/before.txt" ||
	fail "the headline does not say its seconds are sampled CPU time: $(head -1 "$WORK/before.txt")"
python3 - "$RUN/pivot.sqlite" <<'PY' || fail "could not edit the pivot"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("update measurements set value = NULL, quality = 'unavailable', "
               "reason = 'test: withheld' where hotspot is not null").rowcount
assert n > 0, "no measurement to make unavailable"
db.commit()
PY
(cd "$WORK" && "$NUNATAK" report "$RUN" >"$WORK/report.txt" 2>>"$WORK/err.txt") || fail "report failed"
(cd "$WORK" && "$NUNATAK" report --json "$RUN" >"$WORK/rep.json" 2>>"$WORK/err.txt") || fail "report --json failed"
python3 - "$WORK/report.txt" "$WORK/rep.json" <<'PY' || fail "an unavailable value printed as 0 or a bare number"
import json, os, re, sys
text = open(sys.argv[1]).read()
print(text)
assert "unavailable" in text, text
assert not re.search(r"nan|inf", text, re.I), text
# no share, ratio or time reads 0 where the value is unavailable
zero = re.search(r"(?<![\d.,+-])0(?:\.0+)?\s*(%|s\b|ms\b|us\b|ns\b|x\b)", text)
assert not zero, text[max(0, zero.start() - 120):zero.end() + 20]
# the callers come from the call stacks, which still carry their values
assert re.search(r"called from `__libc_start_call_main` 100 %; inclusive 100 % of the stacked time", text), text
sys.path.insert(0, os.path.join(os.environ["NUNATAK_SOURCE_DIR"], "tests/fixtures/run"))
import quality_walk
rep = json.load(open(sys.argv[2]))
quality_walk.check(rep, "report --json with withheld values")
for h in rep["hotspots"]:
    assert h["share"]["value"] is None and h["share"]["reason"], h["share"]
    for l in h["lines"]:
        assert (l["share"]["value"] is None) == (l["share"]["quality"] == "unavailable"), l
PY
echo "ok: unavailable is never printed as 0"
