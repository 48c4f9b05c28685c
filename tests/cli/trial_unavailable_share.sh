#!/bin/bash
# report over a pivot whose time-base values are unavailable (NULL): shares read "unavailable", never "nan%" or 0.0%
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/replay_lib.sh"
replay_entry workload-c
python3 - "$RUN/pivot.sqlite" <<'PY' || fail "could not edit the pivot"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("update measurements set value = NULL, quality = 'unavailable', "
               "reason = 'test: withheld' where hotspot is not null").rowcount
assert n > 0, "no measurement to make unavailable"
db.commit()
PY
(cd "$WORK" && "$NUNATAK" report "$RUN" >"$WORK/report.txt" 2>>"$WORK/err.txt") ||
	fail "report failed"
! grep -qi "nan%" "$WORK/report.txt" || fail "NaN printed: $(grep -i nan "$WORK/report.txt")"
grep -q "^summary: .* hold.* an unavailable share of the sampled time" "$WORK/report.txt" ||
	fail "headline: $(head -1 "$WORK/report.txt")"
if grep -q "^  others:" "$WORK/report.txt"; then
	grep -q "^  others: .* - an unavailable share of the sampled time" "$WORK/report.txt" ||
		fail "others shown as a number: $(grep '^  others:' "$WORK/report.txt")"
fi
(cd "$WORK" && "$NUNATAK" report --json "$RUN" >"$WORK/rep.json" 2>>"$WORK/err.txt") ||
	fail "report --json failed"
python3 - "$WORK/rep.json" <<'PY' || fail "payload shares"
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("others", "unresolved"):
    s = r[k]["share"]
    assert s["value"] is None and s["quality"] == "unavailable", (k, s)
for h in r["hotspots"]:
    assert h["share"]["value"] is None, h["share"]
PY
echo ok
