#!/bin/bash
# The MPI probe's own cost on the page (issue 29 item 3): drawn by headless Chromium from the fixture payload with rank 1's polling calls added, ranks.mpi_probe above 1% is shown under the MPI calls by rank with its share, Quality, exact calls and the --mpi-skip option; at or below 1% (stated false) or absent, nothing is said
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# payload FRACTION STATED OUT: the fixture with rank 1 polling (its MPI
# calls) and the probe's cost; STATED "none": no mpi_probe (null).
payload() {
	python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$@" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
fraction, stated, out = float(sys.argv[2]), sys.argv[3], sys.argv[4]
why = "the probe's cost per call, measured on the rank at MPI_Init, times its calls"
def val(v, unit, q, reason):
    return {"value": v, "unit": unit, "quality": q, "reason": reason, "clock": "wall clock"}
polled = "of the calls timed (a polling call is timed 1 in N), the others' time estimated from them"
calls = [("MPI_Test", 20000123, 3.1e8, 61), ("MPI_Iprobe", 1500000, 4.0e7, 64)]
row = [r for r in p["ranks"]["rows"] if r["rank"] == 1][0]
row["mpi"] = {"source": "interposition", "quality": "estimated",
              "reason": "polling calls are timed 1 in 64 and the others' time estimated from them",
              "wall_ns": val(1.9e9, "ns", "measured", None)}
row["mpi_calls"] = [{"name": n, "calls": c, "bytes": 0, "time_ns": val(t, "ns", "estimated", polled),
                     "sites": [{"file": "/src/solver/poll.c", "line": l, "function": "progress",
                                "calls": c, "time_ns": val(t, "ns", "estimated", polled),
                                "address": "solver+0x1234"}]} for n, c, t, l in calls]
p["ranks"]["mpi_probe"] = None if stated == "none" else {
    "rank": 1, "fraction": val(fraction, "ratio", "estimated", why), "stated": stated == "true",
    "calls": [{"name": n, "calls": c, "ns": val(c * 1.05, "ns", "estimated", why)} for n, c, _, _ in calls],
    "option": "--mpi-skip " + ",".join(n for n, _, _, _ in calls)}
json.dump(p, open(out, "w"))
PY
}
for case in above below none; do
	mkdir -p "$tmp/$case"
	case $case in
	above) payload 0.0293 true "$tmp/$case/payload.json" ;;
	below) payload 0.004 false "$tmp/$case/payload.json" ;;
	none) payload 0 none "$tmp/$case/payload.json" ;;
	esac
	"$NUNATAK" report --payload "$tmp/$case/payload.json" --html </dev/null 2>"$tmp/$case/err.txt" || {
		echo "FAIL: report --payload ($case)"; cat "$tmp/$case/err.txt"; exit 1; }
	dump_dom "file://$tmp/$case/report.html" "$tmp/$case/dom.html"
	# the MPI calls view is drawn in every case: what differs is the note
	expect "$tmp/$case/dom.html" '<h3>MPI calls by rank</h3>' '<div class="mpi-site">poll.c:61</div>'
	reject "$tmp/$case/dom.html" 'undefined' 'NaN' '>null<'
done
expect "$tmp/above/dom.html" \
	"<p class=\"mpi-probe\">nunatak's MPI probe took 2.9% of rank 1's time <span class=\"badge q-estimated\"" \
	'</span>estimated</span> (its cost per call, measured at MPI_Init, times 20,000,123 calls of MPI_Test, 1,500,000 calls of MPI_Iprobe); to leave those calls out of the measurement: <code>nunatak run --mpi-skip MPI_Test,MPI_Iprobe</code> (docs/mpi.md)</p>'
# its Quality's reason, in the badge's tooltip
grep -q "<span class=\"badge q-estimated\" title=\"estimated\$" "$tmp/above/dom.html" &&
	grep -q "^the probe's cost per call, measured on the rank at MPI_Init, times its calls\"><span class=\"qmark" "$tmp/above/dom.html" || {
	echo "FAIL: the badge does not carry the estimate's reason"; exit 1; }
reject "$tmp/below/dom.html" "MPI probe took" 'class="mpi-probe"'
reject "$tmp/none/dom.html" "MPI probe took" 'class="mpi-probe"'
echo "ok: the probe's cost is on the page above 1%, and only then"
