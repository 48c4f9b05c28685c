#!/bin/bash
# nunatak run over real Open MPI (4 ranks): rank 0's 3x work shows as imbalance ~3 in work_units with rank 0 busiest; "4 ranks", the MPI runtime's helper threads counted apart (never as Loci), every downgrade beside its value; output and exit codes pass through
set -eu
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 2; }
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
perf record -q -o /dev/null -- true 2>/dev/null || {
	echo "skip: perf cannot sample here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid))"
	exit 2
}
app="$NUNATAK_BUILD_DIR/examples/mpi/mpi_imbalance"
[ -x "$app" ] || { echo "skip: examples/mpi not built (no mpicc at configure time)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mpi=(mpirun --oversubscribe --allow-run-as-root -n 4)

# 1. The profile: per-rank samples, imbalance ~3 on the work function.
"$NUNATAK" run -o "$tmp/run" -- "${mpi[@]}" "$app" 60 >"$tmp/out" 2>"$tmp/err" || {
	echo "nunatak run failed ($?)"; cat "$tmp/err"; exit 1; }
grep -q "^mpi_imbalance: 4 ranks, rank 0 did 3x60 units" "$tmp/out" || {
	echo "application output lost:"; cat "$tmp/out"; exit 1; }
grep -q "launching ranks" "$tmp/err" || { echo "the launch was not rewritten"; cat "$tmp/err"; exit 1; }
grep -q "^.* 4 ranks (4 sampled); busiest rank 0 at" "$tmp/err" || {
	echo "no rank summary line"; cat "$tmp/err"; exit 1; }
# A downgrade names the value it downgrades, shown on the line above it.
if grep "downgraded to estimated" "$tmp/err" | grep -Ev "^.*(    (share|achieved|attainable|envelope fraction|DRAM intensity|imbalance)(, [a-zA-Z ]+)* downgraded to estimated: |  busiest rank's [0-9.]+x downgraded to estimated: )"; then
	echo "a downgrade that refers to no value shown"; cat "$tmp/err"; exit 1
fi
for r in 0 1 2 3; do
	[ -f "$tmp/run/collect/rank-$r/rank.json" ] || { echo "rank $r left no rank.json"; exit 1; }
done
"$NUNATAK" report --json "$tmp/run" >"$tmp/payload.json"
python3 - "$tmp/payload.json" "$tmp/run/pivot.sqlite" "$tmp/err" <<'PY'
import json, re, sqlite3, sys
p = json.load(open(sys.argv[1]))
ranks = p["ranks"]
# mpi_imbalance is single-threaded: one application thread per rank; every
# other thread is the MPI runtime's (progress, event loop) and is counted
# apart, never as a Locus, sampled or not (a runtime thread asleep for the
# whole run is never sampled: its switches and off-CPU stacks say what it is).
db = sqlite3.connect(sys.argv[2])
sampled = db.execute("select count(distinct m.locus) from measurements m join loci l on l.id = m.locus "
                     "where m.hotspot is not null and l.thread is not null").fetchone()[0]
mains = db.execute("select count(*) from loci where thread = pid").fetchone()[0]
assert mains == 4, ("main threads (tid == pid)", mains)
helpers = ranks["helper_threads"]["count"]
print(f"{sampled} sampled thread Loci: 4 application threads, {helpers} MPI runtime helper threads")
assert p["coverage"]["loci"]["value"] == 4, p["coverage"]
# one classification: the Ranks section, the coverage and the time budget
# count the same helper threads
assert p["coverage"]["helper_threads"]["value"] == helpers, (p["coverage"], helpers)
err = open(sys.argv[3]).read()
tb = p["time_budget"]
val = lambda o, k: o[k]["value"]
if tb and tb["loci"] and val(tb, "cpu_ns") is not None:
    loci, hb = tb["loci"], tb["helper_threads"]
    app = [l for l in loci if not l["helper"]]
    hel = [l for l in loci if l["helper"]]
    assert hb["count"] == len(hel) == helpers, (hb["count"], len(hel), helpers)
    assert tb["application_threads"] == len(app), (tb["application_threads"], len(app))
    assert all(not l["helper"] for l in loci if l["thread"] == l["pid"]), loci
    assert sum(1 for l in app if l["thread"] == l["pid"]) == 4, app
    # Every non-main thread that hardly ran, whose off-CPU stacks were
    # recorded and hold no frame of the program, and that was never sampled
    # in it, must be a helper (judged here from the pivot, not the code).
    me = "%/examples/mpi/mpi_imbalance"
    clear = 0
    for l in loci:
        if l["thread"] == l["pid"] or l["rank"] < 0:
            continue
        lid = db.execute("select id from loci where thread = ? and rank = ?", (l["thread"], l["rank"])).fetchone()[0]
        stacks = db.execute("select count(*) from stacks where locus = ? and counter like 'offcpu%'", (lid,)).fetchone()[0]
        mine = db.execute("select count(*) from stacks s join stack_frames f on f.stack = s.id "
                          "where s.locus = ? and f.module like ?", (lid, me)).fetchone()[0]
        mine += db.execute("select count(*) from measurements m join hotspots h on h.id = m.hotspot "
                           "where m.locus = ? and h.module like ?", (lid, me)).fetchone()[0]
        if stacks and not mine and val(l, "cpu_ns") <= 0.01 * val(l, "wall_ns"):
            clear += 1
            assert l["helper"], ("a runtime thread left in the application's budget", l)
    print(f"time budget: {len(app)} application threads, {len(hel)} helpers ({clear} judged from the pivot)")
    if "call stacks" in tb["mechanism"]:
        assert clear >= 1, "no idle runtime thread with off-CPU stacks: Open MPI started none?"
    # the totals are the application's threads; application + helpers = all
    near = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1
    assert near(val(tb, "cpu_ns"), sum(val(l, "cpu_ns") for l in app)), tb["cpu_ns"]
    assert near(val(tb, "offcpu_ns"), sum(val(l, "offcpu_ns") for l in app)), tb["offcpu_ns"]
    assert near(val(tb, "wall_ns"), max(val(l, "wall_ns") for l in app)), tb["wall_ns"]
    every = sum(val(l, "cpu_ns") + val(l, "offcpu_ns") for l in loci)
    assert near(val(tb, "cpu_ns") + val(tb, "offcpu_ns") + val(hb, "cpu_ns") + val(hb, "offcpu_ns"), every)
    assert near(val(hb, "thread_time_ns"), sum(val(l, "wall_ns") for l in hel))
    assert f"time: wall " in err and f" over {len(app)} application threads (" in err, err
    if hel:
        assert re.search(rf"\n.*  {len(hel)} MPI runtime helper threads? \(.*\): .* not counted above\n", err), err
    # the off-CPU Hotspots are the application's: together no more than its blocked time
    hot = sum(val(h, "time_ns") for h in p["offcpu_hotspots"] if h["attributed"])
    assert hot <= val(tb, "offcpu_ns") - val(tb, "preempted_ns") + 1e6, (hot, tb["offcpu_ns"], p["offcpu_hotspots"])
else:
    print("time budget: no context switches in this Run (perf refused --switch-events): its checks not run")
assert ranks["threads"] == 4, ranks["threads"]
if helpers:
    want = f"  threads: one application thread per rank; {helpers} MPI runtime helper thread"
    assert want in err, err
assert not re.search(r"\b8 Loci\b", err), err
assert len(ranks["rows"]) == 4, ranks
assert ranks["busiest_rank"] == 0, ranks
assert all(r["sampled"] for r in ranks["rows"]), ranks["rows"]
assert ranks["missing"] == [], ranks
work = [h for h in p["hotspots"] if h["name"] == "work_units"]
assert work, [h["name"] for h in p["hotspots"]]
imb = work[0]["imbalance"]["value"]
print(f"work_units imbalance over ranks: {imb:.2f} (expected 3 +- 15%)")
print(f"rank imbalance {ranks['imbalance']['value']:.2f} on {ranks['imbalance']['basis']}")
assert abs(imb - 3.0) <= 0.45, imb
PY

# 2. One rank exits 3: nunatak run exits 3, the output is unchanged.
set +e
"$NUNATAK" run -o "$tmp/run2" -- "${mpi[@]}" "$app" 5 3 2 >"$tmp/out2" 2>"$tmp/err2"
rc=$?
set -e
[ "$rc" -eq 3 ] || { echo "exit code $rc, expected 3"; cat "$tmp/err2"; exit 1; }
grep -q "^mpi_imbalance: 4 ranks, rank 0 did 3x5 units" "$tmp/out2" || {
	echo "application output lost:"; cat "$tmp/out2"; exit 1; }
python3 -c "
import json; j = json.load(open('$tmp/run2/collect/rank-2/rank.json')); assert j['exit_code'] == 3, j"

# 3. Rank 3's shim is killed (SIGKILL) once its application finished, after
# the other ranks wrote theirs: 4 ranks announced, one left nothing: it is
# declared, with its number, not silent.
cat >"$tmp/killer.sh" <<SH
#!/bin/sh
# rank 3 runs without nunatak's MPI library: its MPI profile would be
# something left behind (then declared ranks-incomplete, tests/e2e/mpi_measured.bash)
[ "\$OMPI_COMM_WORLD_RANK" = 3 ] && unset LD_PRELOAD
"$app" 5
rc=\$?
if [ "\$OMPI_COMM_WORLD_RANK" = 3 ]; then
	sleep 2 # the other ranks' shims write their rank.json meanwhile
	p=\$\$
	while [ "\$p" -gt 1 ]; do # the nearest ancestor named nunatak: the shim
		[ "\$(cat /proc/\$p/comm)" = nunatak ] && { kill -9 "\$p"; exit 1; }
		p=\$(awk '{print \$4}' /proc/\$p/stat)
	done
fi
exit \$rc
SH
chmod +x "$tmp/killer.sh"
set +e
"$NUNATAK" run -o "$tmp/run3" -- "${mpi[@]}" "$tmp/killer.sh" >"$tmp/out3" 2>"$tmp/err3"
set -e
grep -q "degraded \[ranks-missing\]: 1 of 4 ranks left no usable artefacts (no rank.json): 3;" "$tmp/err3" || {
	echo "the missing rank was not declared"; cat "$tmp/err3"; exit 1; }
# ... and `nunatak report` (from the Run on disk) still knows 4 ranks were
# announced: rank 3 is a row, listed as missing, not only a degradation.
"$NUNATAK" report --json "$tmp/run3" >"$tmp/payload3.json"
python3 - "$tmp/payload3.json" <<'PY'
import json, sys
ranks = json.load(open(sys.argv[1]))["ranks"]
assert len(ranks["rows"]) == 4, ranks
assert ranks["missing"] == [3], ranks
PY
echo ok
