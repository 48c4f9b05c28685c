#!/bin/bash
# The network Ceilings cached per node set, MPI stack and transport (issue 27), on a real two-node Slurm cluster: `srun -N 2 -n 2` measures the ping-pong once and `srun -N 2 -n 4` on the same two nodes reads it back (the same values and Qualities, said to come from the cache, checked against the nodes its ranks ran on); a Run inside an allocation of the same nodes reads it too (its nodes known before the launch); another node set (-w n2), another --mpi plugin or another transport variable measures again; --nodefile, the allocation less -x, and Open MPI's mpirun filling an allocation name their nodes before the launch (the second mpirun Run reads the first's entry); every Run's summary says where its network Ceilings came from, once; and a cached entry whose nodes turn out not to be the Run's (n1 drained, so `srun -N 1` lands on n2) stays estimated with both node sets in the reason, never measured
# b's page is read in headless Chromium (scripts/deps.sh test installs it
# with the cluster's packages): without it the test is a said skip, not a
# silent half (tests/cli/skip_policy.sh)
command -v chromium >/dev/null || { echo "skip: chromium is not installed (scripts/deps.sh test): run b's page cannot be read"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/e2e/slurm_lib.bash" tests/e2e/mpi_exit.c
fail=0
resume() { scontrol update nodename=n1 state=resume >/dev/null 2>&1 || true; }
trap 'resume; "$cluster" stop "$cluster_dir"; rm -rf "$tmp"' EXIT

# the bare launch first: a cluster that cannot run MPI here is a skip
set +e
timeout 300 srun -N 2 -n 4 --mpi=pmix "$tmp/prog_openmpi" 0 >bare.out 2>bare.err </dev/null
rc=$?
set -e
need_bare bare.out bare.err "$rc" "srun --mpi=pmix (openmpi)"

# run NAME [ENV...] -- LAUNCH...: one Run; stderr in NAME.err
run() {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	set +e
	timeout 600 env "${envs[@]}" "$@" >"$name.out" 2>"$name.err" </dev/null
	local rc=$?
	set -e
	[ "$rc" = 0 ] || { echo "FAIL: $name: exited $rc"; cat "$name.err"; exit 1; }
	grep -q "says hello" "$name.out" || { echo "FAIL: $name: no output"; cat "$name.out" "$name.err"; exit 1; }
}
prog="$tmp/prog_openmpi"
run a -- "$NUNATAK" run -o "$tmp/run-a" -- srun -N 2 -n 2 --mpi=pmix "$prog" 0
# The ping-pong under srun --mpi=pmix crashed in Open MPI about once in ten
# launches in an earlier session (docs/mpi.md); the Run says so and caches
# nothing. Once more then (a failure outside nunatak), and a skip if again.
if grep -q "network-ceilings-unavailable" a.err; then
	grep "network-ceilings-unavailable" a.err
	echo "note: the first ping-pong failed (said above); once more"
	rm -rf "$tmp/run-a"
	run a -- "$NUNATAK" run -o "$tmp/run-a" -- srun -N 2 -n 2 --mpi=pmix "$prog" 0
	if grep -q "network-ceilings-unavailable" a.err; then
		grep "network-ceilings-unavailable" a.err
		echo "skip: the ping-pong itself failed twice on this cluster (said by the Runs above): nothing to cache"
		exit 2
	fi
fi
run b -- "$NUNATAK" run -o "$tmp/run-b" -- srun -N 2 -n 4 --mpi=pmix "$prog" 0
run c -- salloc -N 2 "$NUNATAK" run -o "$tmp/run-c" -- srun -n 2 --mpi=pmix "$prog" 0
run d -- "$NUNATAK" run -o "$tmp/run-d" -- srun -w n2 -n 2 --mpi=pmix "$prog" 0
run e OMPI_MCA_btl=self,vader,tcp -- "$NUNATAK" run -o "$tmp/run-e" -- srun -N 2 -n 2 --mpi=pmix "$prog" 0
# another name for the PMIx plugin, when this Slurm has one: --mpi as written
other=$(srun --mpi=list 2>&1 | grep -o 'pmix_v[0-9]*' | head -1 || true)
[ -z "$other" ] || run f -- "$NUNATAK" run -o "$tmp/run-f" -- srun -N 2 -n 2 --mpi="$other" "$prog" 0
# node sets known before the launch: --nodefile (n2: d's entry), the
# allocation less -x, and Open MPI's mpirun inside an allocation whose every
# node its ranks fill (a slot each on salloc -N 2), twice: measured, then read
printf 'n2\n' >"$tmp/nodefile"
run i -- "$NUNATAK" run -o "$tmp/run-i" -- srun --nodefile "$tmp/nodefile" -n 2 --mpi=pmix "$prog" 0
run j -- salloc -N 2 -n 4 "$NUNATAK" run -o "$tmp/run-j" -- srun -x n2 -N 1 -n 2 --mpi=pmix "$prog" 0
set +e
timeout 300 salloc -N 2 mpirun -n 2 "$prog" 0 >bare-mpirun.out 2>bare-mpirun.err </dev/null
rc=$?
set -e
if [ "$rc" = 0 ] && [ "$(grep -c 'says hello' bare-mpirun.out)" = 2 ]; then
	run k -- salloc -N 2 "$NUNATAK" run -o "$tmp/run-k" -- mpirun -n 2 "$prog" 0
	run l -- salloc -N 2 "$NUNATAK" run -o "$tmp/run-l" -- mpirun -n 2 "$prog" 0
else
	tail -n 5 bare-mpirun.err
	echo "note: Open MPI's mpirun does not run bare inside salloc here (exit $rc): its case is not run"
fi
# the nodes a launch of this shape measured on last (n1, by Slurm's order)
# are not where it runs once n1 is drained
run g -- "$NUNATAK" run -o "$tmp/run-g" -- srun -N 1 -n 2 --mpi=pmix "$prog" 0
if scontrol update nodename=n1 state=drain reason=nunatak-test; then
	run h -- "$NUNATAK" run -o "$tmp/run-h" -- srun -N 1 -n 2 --mpi=pmix "$prog" 0
	resume
else
	echo "note: n1 could not be drained here: the other-nodes case is not run"
fi
for r in a b c d e f g h i j k l; do
	if [ -f "$r.err" ]; then
		echo "$r: $(grep -c 'measuring the network' "$r.err" || true) ping-pong(s); $(grep 'network Ceilings (' "$r.err" | sed 's/.*network Ceilings (/(/' || true)"
	fi
done
# the page's payload of each Run (report --json): where the network Ceilings
# came from, as the page says it
for r in a b c d e f g h i j k l; do
	if [ -d "$tmp/run-$r" ]; then "$NUNATAK" report --json "$tmp/run-$r" >"$r.payload.json" 2>/dev/null || fail=1; fi
done
python3 - "$tmp" "$other" <<'PY' || fail=1
import json, os, sys
tmp, other = sys.argv[1], sys.argv[2]
def said_once(r, m, err):
    """the summary's network Ceilings header is the manifest's sentence, once,
    with the worst Quality; the page's payload carries the same"""
    f = m["cost"].get("network_ceilings_from")
    if not f:
        return
    qs = [c["quality"] for c in m["machine"]["ceilings"] if c["name"].startswith("network_")]
    q = "unavailable" if "unavailable" in qs else "estimated" if "estimated" in qs else "measured"
    head = [l for l in err.splitlines() if "network Ceilings (" in l]
    assert len(head) == 1 and head[0].endswith(f"  network Ceilings ({q}): {f['summary']}"), (r, head, f)
    assert err.count(f["summary"]) == 1 and "network Ceilings: " not in err, (r, "said twice")
    p = json.load(open(f"{r}.payload.json"))["network_ceilings"]
    assert p["from"] == f["summary"] and p["quality"] == q and p["nodes"] == f["nodes"], (r, p, f)
def load(r):
    m = json.load(open(f"{tmp}/run-{r}/manifest.json"))
    net = {c["name"]: (c["value"], c["quality"], c.get("reason")) for c in m["machine"]["ceilings"]
           if c["name"].startswith("network_")}
    err = open(f"{r}.err").read()
    said_once(r, m, err)
    return m, net, err
def probed(r):
    return load(r)[2].count("measuring the network")
def failed(r):
    """the ping-pong ran and failed (outside nunatak), said with the reason"""
    m, net, err = load(r)
    return "network-ceilings-unavailable" in err and not net and "network_ceilings_from" not in m["cost"]
m, net_a, err = load("a")
fa = m["cost"]["network_ceilings_from"]
assert probed("a") == 1 and m["cost"]["network_ceilings"] == "measured", m["cost"]
assert fa["how"] == "measured" and fa["nodes"] == ["n1", "n2"], fa
assert "network_latency" in net_a and "network_bandwidth" in net_a, net_a
# b: -n 4 on the same two nodes: no ping-pong, the same figures, checked
for r in ("b", "c"):
    m, net, err = load(r)
    f = m["cost"]["network_ceilings_from"]
    assert probed(r) == 0, (r, "measured again")
    assert m["cost"]["network_ceilings"] == "cached" and m["cost"]["network_probe"]["value"] == 0, (r, m["cost"])
    assert f["how"] == "cached" and f["nodes"] == ["n1", "n2"] and f["measured_at"] == fa["measured_at"], (r, f)
    assert "(this Run's nodes)" in f["summary"], (r, f)
    # a's ranks were one per node: no within-node pair in the entry, which b
    # (ranks 0 and 1 on n1) would have measured: said, not invented
    assert ("no within-node pair" in f["summary"]) == (r == "b"), (r, f)
    # ... in the summary and on the page too (said_once checks the sentence)
    assert ("no within-node pair" in err) == (r == "b"), (r, err)
    assert not any(k.endswith("_intranode") for k in net), (r, net)
    assert net == net_a, (r, net, net_a)
    assert sorted(n["node"] for n in m["nodes"]) == ["n1", "n2"], (r, m["nodes"])
assert "the nodes of this launch, from srun the allocation (SLURM_JOB_NODELIST)" in load("c")[2], "c: not read before the launch"
# d: one node, e and f: another transport: measured again
for r in ("d", "e") + (("f",) if other else ()):
    m, net, err = load(r)
    assert probed(r) == 1, (r, "not measured again")
    if failed(r):
        print(f"note: {r}: the ping-pong failed (said by the Run): its figures are not checked")
        continue
    assert m["cost"]["network_ceilings_from"]["how"] == "measured", (r, m["cost"])
m, net_d, _ = load("d")
if not failed("d"):
    assert m["cost"]["network_ceilings_from"]["nodes"] == ["n2"], m["cost"]
    assert all(q == "estimated" and "single-node" in why for _, q, why in net_d.values()), net_d
# i, j, k: their nodes read before the launch, and the Runs' nodes; i is
# d's entry (n2, --mpi=pmix); l reads k's (n1, n2, mpirun's stack)
def before(r, src):
    err = load(r)[2]
    return f"the nodes of this launch, from {src}" in err or f"[{src}]" in err
for r, nodes, src in (("i", ["n2"], "srun --nodefile"),
                      ("j", ["n1"], "srun the allocation (SLURM_JOB_NODELIST) less -x/--exclude"),
                      ("k", ["n1", "n2"], "the allocation (SLURM_NODELIST): its ranks fill every node"),
                      ("l", ["n1", "n2"], "the allocation (SLURM_NODELIST): its ranks fill every node")):
    if not os.path.exists(f"{tmp}/run-{r}"):
        continue
    m, net, err = load(r)
    assert before(r, src), (r, src, err)
    assert sorted(n["node"] for n in m["nodes"]) == nodes, (r, m["nodes"])
    if not failed(r):
        f = m["cost"]["network_ceilings_from"]
        assert f["nodes"] == nodes and f["summary"].endswith("(this Run's nodes)"), (r, f)
if not failed("d"):
    assert probed("i") == 0 and load("i")[0]["cost"]["network_ceilings"] == "cached", "i: d's entry not read"
if os.path.exists(f"{tmp}/run-l") and not failed("k"):
    fk, fl = (load(r)[0]["cost"]["network_ceilings_from"] for r in ("k", "l"))
    assert probed("k") == 1 and probed("l") == 0, "k measures, l reads"
    assert fl["how"] == "cached" and fl["measured_at"] == fk["measured_at"], (fk, fl)
# g: the probe and the application are two Slurm jobs of one node each,
# which may land on different nodes: then the figures just measured are
# not the application's nodes' and say so
if failed("g") or not os.path.exists(f"{tmp}/run-h"):
    print("note: g's ping-pong failed, or n1 could not be drained: the other-nodes case is not checked")
    sys.exit(0)
mg, net_g, _ = load("g")
g_nodes = mg["cost"]["network_ceilings_from"]["nodes"]
g_ran = sorted(n["node"] for n in mg["nodes"])
assert probed("g") == 1 and len(g_nodes) == 1 and len(g_ran) == 1, mg["cost"]
if g_nodes != g_ran:
    for k, (v, q, why) in net_g.items():
        assert q == "estimated" and why.startswith(f"measured by the ping-pong on nodes {g_nodes[0]}; the application ran on {g_ran[0]}"), (k, q, why)
    # what is cached is the probe's own account (its node), not the downgrade
# h: the entry of the nodes g measured on; h runs on n2 (n1 drained)
mh, net_h, err_h = load("h")
h_ran = sorted(n["node"] for n in mh["nodes"])
assert h_ran == ["n2"], mh["nodes"]
fh = mh["cost"]["network_ceilings_from"]
assert probed("h") == 0 and fh["how"] == "cached" and fh["nodes"] == g_nodes, fh
if g_nodes == ["n1"]:
    assert "not this Run's nodes (n2): estimated" in fh["summary"], fh
    for k, (v, q, why) in net_h.items():
        assert q == "estimated" and why.startswith("measured in an earlier Run by the ping-pong on nodes n1; the application ran on n2"), (k, q, why)
        assert v == net_g[k][0], (k, v, net_g[k])
    print("h: cached from n1, ran on n2: estimated, both named")
else:
    # g measured on n2, where h ran: its stored Qualities (single node: estimated)
    assert fh["summary"].endswith("(this Run's nodes)"), fh
    for k, (v, q, why) in net_h.items():
        assert q == "estimated" and why.startswith("measured over shared memory: single-node"), (k, q, why)
    print("note: g measured on n2, where h ran too: the other-nodes case was not reached this time")
PY
# b's page says it too, beside its network Ceilings (headless Chromium)
if [ -f "$tmp/run-b/report.html" ]; then
	(
		. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
		dump_dom "file://$tmp/run-b/report.html" "$tmp/dom-b.html"
		python3 - "$tmp/dom-b.html" "$tmp/run-b/manifest.json" <<'PY'
import html, json, re, sys
dom, m = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
said = m["cost"]["network_ceilings_from"]["summary"]
ps = [html.unescape(re.sub(r"<[^>]+>", "", p)) for p in re.findall(r'<p class="network-from">(.*?)</p>', dom, re.S)]
assert ps and all(f"; {said}." in p and "no within-node pair" in p for p in ps), (ps, said)
print("b's page: " + ps[0][:160])
PY
	) || { echo "FAIL: b's page does not say where its network Ceilings came from"; fail=1; }
else
	echo "FAIL: run b wrote no report.html"
	fail=1
fi
if [ "$fail" != 0 ]; then
	for r in a b c d e f g h i j k l; do
		if [ -f "$r.err" ]; then echo "--- $r.err"; cat "$r.err"; fi
	done
	exit 1
fi
echo "ok: network Ceilings measured once per node set, MPI stack and transport; read back whatever the rank count; never measured on other nodes than the Run's"
