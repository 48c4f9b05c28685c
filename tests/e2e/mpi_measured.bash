# SPDX-License-Identifier: BSD-3-Clause
# Shared body of mpi_measured.sh (Open MPI) and mpi_measured_mpich.sh:
# MPI time measured by nunatak's interposition library, per rank and per call
# site, against what the program measures itself. Expects: launcher, mpicc,
# launcher flags in the array `flags`, and `stack` for messages; `bind`
# (optional): the launcher's flags that bind each rank to one core.
set -eu
[ -n "${bind+x}" ] || bind=()
command -v "$launcher" >/dev/null || { echo "skip: $launcher is not installed"; exit 2; }
command -v "$mpicc" >/dev/null || { echo "skip: $mpicc is not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
src="$NUNATAK_SOURCE_DIR/tests/e2e/mpi_wait.c"
"$mpicc" -g -O1 -o "$tmp/mpi_wait" "$src"
line=$(grep -n 'BARRIER_LINE' "$src" | cut -d: -f1)

# 1. Barrier wait and exact bytes, measured in every rank.
"$NUNATAK" run -o "$tmp/run" -- "$launcher" "${flags[@]}" -n 2 "$tmp/mpi_wait" 300 \
	>"$tmp/out" 2>"$tmp/err" || { echo "nunatak run failed ($?)"; cat "$tmp/err"; exit 1; }
grep -q "^rank 1 barrier_ns " "$tmp/out" || { echo "application output lost"; cat "$tmp/out"; exit 1; }
grep -q "built nunatak's MPI probes with $mpicc" "$tmp/err" || {
	echo "the probes were not built with $mpicc"; cat "$tmp/err"; exit 1; }
grep -q "MPI holds .* of the time (measured in MPI calls)" "$tmp/err" || {
	echo "MPI share not measured"; cat "$tmp/err"; exit 1; }
grep -q "rank 1 waits [0-9]*% of its time in \`MPI_Barrier\` at \`mpi_wait.c:$line\`" "$tmp/err" || {
	echo "the summary does not name the dominant call and its site (line $line)"; cat "$tmp/err"; exit 1; }
# Where the network Ceilings came from, with their Quality: said once, by
# the summary (the manifest's sentence), never again after the launch.
netfrom_summary() { # ERR MANIFEST
	python3 - "$1" "$2" <<'PY'
import json, re, sys
err, m = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
net = [c for c in m["machine"]["ceilings"] if c["name"].startswith("network_")]
q = "estimated" if any(c["quality"] == "estimated" for c in net) else "measured"
assert all(c["quality"] in ("measured", "estimated") for c in net), net
said = m["cost"]["network_ceilings_from"]["summary"]
head = [l for l in err.splitlines() if "network Ceilings (" in l]
assert len(head) == 1 and head[0].endswith(f"  network Ceilings ({q}): {said}"), (head, said)
for c in net:
    assert re.search(rf"^\S*\s+{c['name']} [0-9.]+ [a-zA-Z/]+, {c['quality']}", err, re.M), (c, err)
assert "network Ceilings: " not in err, "the old line after the launch is back"
assert err.count(said) == 1, ("said more than once", said)
PY
}
# netfrom_page DOM MANIFEST: the page's sentence beside the network Ceilings
netfrom_page() {
	python3 - "$1" "$2" <<'PY'
import html, json, re, sys
dom, m = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
said = m["cost"]["network_ceilings_from"]["summary"]
ps = [re.sub(r"<[^>]+>", "", p) for p in re.findall(r'<p class="network-from">(.*?)</p>', dom, re.S)]
ps = [html.unescape(p) for p in ps]
assert len(ps) == 2, ps  # the MPI section and the Machine's Ceilings in the drawer
for p in ps:
    assert p.startswith("Network Ceilings ") and f"; {said}." in p, (p, said)
    assert ("estimated" in p.split(":")[0]) == any(c["quality"] == "estimated" for c in m["machine"]["ceilings"] if c["name"].startswith("network_")), p
PY
}
netfrom_summary "$tmp/err" "$tmp/run/manifest.json" || {
	echo "the summary does not say where the network Ceilings came from, once"; cat "$tmp/err"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/payload.json"
python3 - "$tmp/payload.json" "$tmp/out" "$line" "$tmp/run/manifest.json" <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))
own = {int(r): int(ns) for r, ns in re.findall(r"^rank (\d+) barrier_ns (\d+)$", open(sys.argv[2]).read(), re.M)}
line = int(sys.argv[3])
rows = {r["rank"]: r for r in p["ranks"]["rows"]}
def call(rank, name):
    c = [c for c in rows[rank]["mpi_calls"] if c["name"] == name]
    assert c, (rank, name, rows[rank]["mpi_calls"])
    return c[0]
b1, b0 = call(1, "MPI_Barrier"), call(0, "MPI_Barrier")
rel = abs(b1["time_ns"]["value"] - own[1]) / own[1]
print(f"rank 1 MPI_Barrier: interposed {b1['time_ns']['value']} ns, program {own[1]} ns ({100*rel:.3f}% apart)")
assert rel <= 0.10, rel
assert b0["time_ns"]["value"] < 0.25 * b1["time_ns"]["value"], (b0, b1)
# interposed times are wall-clock Quality values (issue 16)
assert b1["time_ns"]["quality"] == "measured" and b1["time_ns"]["clock"] == "wall clock", b1
assert rows[1]["mpi_fraction"]["clock"] == "wall clock" and rows[1]["app_ns"]["clock"] == "sampled CPU time", rows[1]
site = b1["sites"][0]
assert site["file"].endswith("mpi_wait.c") and site["line"] == line and site["function"] == "main", site
s, r = call(0, "MPI_Send"), call(1, "MPI_Recv")
assert (s["calls"], s["bytes"]) == (2, 1056), s
assert (r["calls"], r["bytes"]) == (2, 1056), r
for k in (0, 1):
    assert rows[k]["mpi"]["source"] == "interposition" and rows[k]["mpi"]["quality"] == "measured", rows[k]["mpi"]
share = p["ranks"]["mpi_fraction"]
assert share["source"] == "interposition" and share["quality"] == "measured", share
dom = p["ranks"]["mpi_dominant"]
assert dom["rank"] == 1 and dom["call"] == "MPI_Barrier" and dom["site"] == f"mpi_wait.c:{line}", dom
tl = p["ranks"]["mpi_timeline"]
names = [tl["names"][i[1]] for i in tl["items"]]
assert any(n == "MPI_Barrier" for n in names) and tl["shown"] <= tl["limit"], tl
long_barrier = [i for i in tl["items"] if tl["names"][i[1]] == "MPI_Barrier" and i[0] == 1]
assert long_barrier and long_barrier[0][3] == b1["time_ns"]["value"], long_barrier
ceil = {c["name"]: c for c in json.load(open(sys.argv[4]))["machine"]["ceilings"]}
for n in ("network_latency", "network_bandwidth"):
    assert ceil[n]["value"] > 0 and ceil[n]["quality"] == "estimated", ceil
    assert ceil[n]["reason"].startswith("measured over shared memory"), ceil[n]
print(f"network: latency {ceil['network_latency']['value']*1e9:.0f} ns, bandwidth {ceil['network_bandwidth']['value']/1e9:.2f} GB/s")
# nunatak's own cost, part by part (issue 27): the probe ran and was timed
cost = json.load(open(sys.argv[4]))["cost"]
for k in ("setup", "calibration", "network_probe", "collection_overhead", "finish"):
    v = cost[k]
    assert v["unit"] == "s" and v["quality"] in ("measured", "estimated", "unavailable"), (k, v)
    assert (v["value"] is None) == (v["quality"] == "unavailable"), (k, v)
for k in ("setup", "network_probe", "application", "finish"):
    assert cost[k]["quality"] == "measured" and cost[k]["value"] > 0, (k, cost[k])
assert cost["network_ceilings"] == "measured", cost
# the application split at the ranks' own start and end (rank.json "clock"):
# every rank ran under this kernel, so measured; the three parts are the
# application's time, and the ranks' span lies inside the launcher's
ap = cost["application_parts"]
for k in ("until_first_rank", "ranks", "after_last_rank"):
    assert ap[k]["quality"] == "measured" and ap[k]["unit"] == "s" and ap[k]["value"] >= 0, (k, ap)
assert ap["ranks"]["value"] > 0, ap
total = sum(ap[k]["value"] for k in ("until_first_rank", "ranks", "after_last_rank"))
assert abs(total - cost["application"]["value"]) < 1e-3, (total, cost["application"])
# the ranks sampled themselves: their samples are the collection's (it said
# "nothing was sampled in this Run" before issue 27's round)
import glob, os
roles = [json.load(open(f))["role"] for f in
         glob.glob(os.path.join(os.path.dirname(sys.argv[4]), "collect", "rank-*", "rank.json"))]
if "sampler" in roles or "preload" in roles:
    ov = json.load(open(sys.argv[4])).get("overhead")
    assert ov and ov["samples"] > 0, (roles, ov)
    assert "nothing was sampled" not in (cost["collection_overhead"]["reason"] or ""), cost
else:
    print(f"no rank sampled here (roles {roles}): the overhead of rank sampling is not checked")
PY
n=$(sqlite3 "$tmp/run/pivot.sqlite" "select count(*) from events where kind='mpi' and name='MPI_Barrier'")
[ "$n" -ge 2 ] || { echo "MPI_Barrier events missing from the pivot ($n)"; exit 1; }

# The report page draws the ranks x MPI calls view and the timeline
# (headless Chromium, where the script asks for it and Chromium exists).
if [ "${browser:-0}" = 1 ] && command -v chromium >/dev/null; then
	. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
	dump_dom "file://$tmp/run/report.html" "$tmp/dom.html"
	grep -q '<h3>MPI calls by rank</h3>' "$tmp/dom.html" || { echo "no MPI calls view"; exit 1; }
	grep -q "rank 1 waits [0-9.]*% of its time in <code>MPI_Barrier</code> at <code>mpi_wait.c:$line</code>" \
		"$tmp/dom.html" || { echo "the page does not name the dominant call"; exit 1; }
	grep -q '<th scope="col"[^>]*>MPI_Barrier</th>' "$tmp/dom.html" || { echo "no MPI_Barrier column"; exit 1; }
	grep -q '<div class="mpi-site">mpi_wait.c:'"$line"'</div>' "$tmp/dom.html" || {
		echo "no call site in the matrix"; exit 1; }
	grep -q '<h3>MPI calls over time</h3>' "$tmp/dom.html" || { echo "no MPI timeline"; exit 1; }
	grep -q 'Clocks: Time and Application from sampled CPU time; MPI and MPI fraction from wall clock' \
		"$tmp/dom.html" || { echo "the ranks table does not say which clock each time comes from"; exit 1; }
	[ "$(grep -o 'class="mpi-event" data-name="MPI_Barrier"' "$tmp/dom.html" | wc -l)" -ge 2 ] || {
		echo "the timeline lacks the ranks' barriers"; exit 1; }
	grep -q '<th scope="row">network_latency</th>' "$tmp/dom.html" || {
		echo "network Ceilings not shown with the Machine's"; exit 1; }
	grep -q '<h3>Network Ceilings</h3>' "$tmp/dom.html" || {
		echo "no network Ceilings in the MPI section"; exit 1; }
	netfrom_page "$tmp/dom.html" "$tmp/run/manifest.json" || {
		echo "the page does not say where the network Ceilings came from"; exit 1; }
	if grep -q 'NaN\|undefined\|>null<' "$tmp/dom.html"; then echo "page shows NaN/undefined/null"; exit 1; fi
fi

# 2. The probes come from the cache the second time: nothing is rebuilt, and
# the network Ceilings of this node set and MPI stack are not measured again.
"$NUNATAK" run -o "$tmp/run2" -- "$launcher" "${flags[@]}" -n 2 "$tmp/mpi_wait" 10 >/dev/null 2>"$tmp/err2"
if grep -q "built nunatak's MPI probes" "$tmp/err2"; then echo "probes rebuilt"; exit 1; fi
if grep -q "measuring the network" "$tmp/err2"; then echo "network measured again"; cat "$tmp/err2"; exit 1; fi
grep -q "network Ceilings from the cache $tmp/cache/nunatak/network/" "$tmp/err2" || {
	echo "network Ceilings not from the cache"; cat "$tmp/err2"; exit 1; }
python3 - "$tmp/run/manifest.json" "$tmp/run2/manifest.json" <<'PY' || { echo "cached network Ceilings"; exit 1; }
import json, sys
m1, m2 = (json.load(open(p)) for p in sys.argv[1:3])
net = lambda m: [c for c in m["machine"]["ceilings"] if c["name"].startswith("network_")]
assert net(m1) and net(m2) == net(m1), (net(m1), net(m2))
assert m2["cost"]["network_ceilings"] == "cached" and m2["cost"]["network_probe"]["value"] == 0, m2["cost"]
assert m2["provenance"]["dependencies"]["mpi"] == m1["provenance"]["dependencies"]["mpi"]
# where they came from: measured on this host by the first Run, then cached
# from it and checked against the nodes the second Run's ranks ran on
f1, f2 = m1["cost"]["network_ceilings_from"], m2["cost"]["network_ceilings_from"]
ran = sorted(n["node"] for n in m2["nodes"])
assert f1["how"] == "measured" and f1["nodes"] == ran, (f1, ran)
assert f2["how"] == "cached" and f2["nodes"] == ran and f2["measured_at"] == f1["measured_at"], f2
assert f2["summary"].startswith("cached from a Run at ") and f2["summary"].endswith("(this Run's nodes)"), f2
PY
netfrom_summary "$tmp/err2" "$tmp/run2/manifest.json" || {
	echo "the summary does not say the network Ceilings came from the cache, once"; cat "$tmp/err2"; exit 1; }
"$NUNATAK" report --json "$tmp/run2" >"$tmp/payload2.json"
python3 - "$tmp/payload2.json" "$tmp/run2/manifest.json" <<'PY' || { echo "payload's network_ceilings"; exit 1; }
import json, sys
p, m = (json.load(open(f)) for f in sys.argv[1:3])
f = m["cost"]["network_ceilings_from"]
n = p["network_ceilings"]
assert n["from"] == f["summary"] and n["how"] == "cached" and n["nodes"] == f["nodes"], (n, f)
PY
if [ "${browser:-0}" = 1 ] && command -v chromium >/dev/null; then
	dump_dom "file://$tmp/run2/report.html" "$tmp/dom2.html"
	netfrom_page "$tmp/dom2.html" "$tmp/run2/manifest.json" || {
		echo "the page does not say the network Ceilings came from the cache"; exit 1; }
fi
# (10 ms units: which rank waits most is noise here, only the measurement counts)
grep -q "rank [01] waits [0-9]*% of its time in \`MPI_" "$tmp/err2" || {
	echo "cached library not injected"; cat "$tmp/err2"; exit 1; }

# 2b. Ranks bound to a core each (mpirun's binding): the node's Machine is the
# launcher's CPU set there, not one rank's core. The shim's writer is a child
# of the launcher-facing half, whose CPU set is the rank's: read before the
# split, one Machine for the node, the launch node's, and nothing borrowed.
if [ "${#bind[@]}" -gt 0 ]; then
	"$NUNATAK" run -o "$tmp/runb" -- "$launcher" "${flags[@]}" "${bind[@]}" -n 2 "$tmp/mpi_wait" 10 \
		>/dev/null 2>"$tmp/errb" || { echo "nunatak run, bound ranks"; cat "$tmp/errb"; exit 1; }
	python3 - "$tmp/runb/manifest.json" <<'PY' || { echo "the node's Machine under bound ranks"; cat "$tmp/errb"; exit 1; }
import json, sys
m = json.load(open(sys.argv[1]))
nodes = m.get("nodes") or []
assert len(nodes) == 1 and sorted(nodes[0]["ranks"]) == [0, 1], [(n["node"], n["ranks"], n["identity"]) for n in nodes]
assert nodes[0]["identity"] == m["machine"]["identity"], (nodes[0]["identity"], m["machine"]["identity"])
assert nodes[0]["machine"]["allocation"]["affinity_mask"] == m["machine"]["allocation"]["affinity_mask"], nodes[0]["machine"]["allocation"]
assert "node-ceilings-borrowed" not in [d["name"] for d in m["degradations"]], m["degradations"]
PY
fi

# 3. Rank 1 dies of SIGKILL before MPI_Finalize: rank 0's data stays intact
# and measured, rank 1's stops at its last flush and is declared.
set +e
# Every call an event (NUNATAK_MPI_EVENT_NS=0): rank 1's last call, MPI_Iprobe(MPI_ANY_SOURCE),
# crosses the flush period, so its event (peer MPI_ANY_SOURCE: -2 in MPICH) is in the flush.
NUNATAK_MPI_EVENT_NS=0 NUNATAK_MPI_FLUSH_MS=200 "$NUNATAK" run -o "$tmp/run3" -- "$launcher" "${flags[@]}" -n 2 \
	"$tmp/mpi_wait" 100 kill >"$tmp/out3" 2>"$tmp/err3"
set -e
grep -q "degraded \[mpi-rank-unfinished\]: rank 1 never reached MPI_Finalize" "$tmp/err3" || {
	echo "the killed rank was not reported"; cat "$tmp/err3"; exit 1; }
grep -q "^state	running$" "$tmp/run3/collect/rank-1/mpi-profile.txt" || {
	echo "rank 1 left no periodic flush"; cat "$tmp/run3/collect/rank-1/mpi-profile.txt"; exit 1; }
# MPICH's launcher ends the other ranks' shims too: such a rank has no
# rank.json, yet its profile is read and the rank declared incomplete.
if [ ! -f "$tmp/run3/collect/rank-0/rank.json" ]; then
	grep -q "degraded \[ranks-incomplete\]: 1 of 2 ranks left only their MPI profile (no rank.json): 0;" \
		"$tmp/err3" || { echo "rank 0's lost rank.json not declared"; cat "$tmp/err3"; exit 1; }
fi
"$NUNATAK" report --json "$tmp/run3" >"$tmp/payload3.json"
python3 - "$tmp/payload3.json" <<'PY'
import json, sys
rows = {r["rank"]: r for r in json.load(open(sys.argv[1]))["ranks"]["rows"]}
send = [c for c in rows[0]["mpi_calls"] if c["name"] == "MPI_Send"][0]
assert rows[0]["mpi"]["quality"] == "measured" and send["bytes"] == 1056, rows[0]
assert rows[1]["mpi"]["quality"] == "estimated", rows[1]["mpi"]
assert "never reached MPI_Finalize" in rows[1]["mpi"]["reason"], rows[1]["mpi"]
recv = [c for c in rows[1]["mpi_calls"] if c["name"] == "MPI_Recv"][0]
assert recv["bytes"] == 1056, recv
PY
echo "ok ($stack)"
