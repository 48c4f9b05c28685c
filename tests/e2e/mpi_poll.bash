# SPDX-License-Identifier: BSD-3-Clause
# Shared body of mpi_poll.sh (C, Open MPI), mpi_poll_mpich.sh (C, MPICH),
# mpi_poll_fortran.sh (Fortran, Open MPI) and mpi_poll_fortran_mpich.sh: a
# polling MPI program (2 ranks) under nunatak. Every polling call's count
# exact, at its own source line, its time stated as estimated (timed 1 in
# N); samples in the PMPI probe shown as the MPI function; no Hotspot,
# frame, stack frame, flame node, inline frame or MPI site naming the probe
# library, the preload sampler or their internals; the probe's cost stated
# (summary, payload, page) exactly when above 1%; --mpi-skip leaves the
# call out. Expects: launcher, compiler (mpicc or mpifort of that MPI), src
# (tests/e2e/mpi_poll.c or .f90), launcher flags in the array `flags`.
# The program prints "rank 1 <what> N ..." per polling call it made:
# tests (MPI_Test, at TEST_LINE), iprobes (MPI_Iprobe, IPROBE_LINE),
# testanys (MPI_Testany, TESTANY_LINE), testalls, testsomes, getstatuses
# (MPI_Request_get_status), improbes (their _LINE likewise).
set -eu
command -v "$launcher" >/dev/null || { echo "skip: $launcher is not installed"; exit 2; }
command -v "$compiler" >/dev/null || { echo "skip: $compiler is not installed"; exit 2; }
command -v objdump >/dev/null && command -v addr2line >/dev/null || {
	echo "skip: objdump and addr2line (binutils) are not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
# frame pointers: call stacks are recorded, so stack frames and the flame
# graph are checked too
"$compiler" -g -O1 -fno-omit-frame-pointer -o "$tmp/mpi_poll" "$src"
lines=$(for k in TEST_LINE IPROBE_LINE TESTANY_LINE TESTALL_LINE TESTSOME_LINE GETSTATUS_LINE IMPROBE_LINE; do
	echo "$k=$(grep -n "[!*] $k\b" "$src" | cut -d: -f1)"; done)
# the line the binary's debug information gives each call of an MPI binding
# (gfortran may put it on a neighbouring line): "mpi_test_=54 ..."
debug_lines=$(objdump -d --no-show-raw-insn "$tmp/mpi_poll" |
	sed -n 's/^ *\([0-9a-f]*\):.*call.*<\([A-Za-z_]*\)@plt>$/\2 \1/p' | grep -i "^mpi_" |
	while read -r name addr; do echo "$name=$(addr2line -e "$tmp/mpi_poll" "$addr" | sed 's/.*://; s/ .*//')"; done)
# polls: ~0.3-1 s of rank 1's CPU, of which the probe's share gives tens
# of samples at 997 Hz whatever the load (CPU time, not wall time).
"$NUNATAK" run -o "$tmp/run" -- "$launcher" "${flags[@]}" -n 2 "$tmp/mpi_poll" "$polls" \
	>"$tmp/out" 2>"$tmp/err" </dev/null || { echo "nunatak run failed ($?)"; cat "$tmp/err"; exit 1; }
grep -q "^rank 1 tests [0-9].* data 42$" "$tmp/out" || { echo "application output lost"; cat "$tmp/out"; exit 1; }
grep -q "MPI holds .* of the time (estimated in MPI calls)" "$tmp/err" || {
	echo "the summary does not say the MPI time is estimated"; cat "$tmp/err"; exit 1; }
"$NUNATAK" report --json "$tmp/run" >"$tmp/payload.json"
python3 - "$tmp/payload.json" "$tmp/run/pivot.sqlite" "$tmp/out" "$lines" "$(basename "$src")" "$debug_lines" <<'PY'
import json, re, sqlite3, sys
p = json.load(open(sys.argv[1]))
out = re.search(r"^rank 1 (.*) data 42$", open(sys.argv[3]).read(), re.M).group(1).split()
names = {"tests": "MPI_Test", "iprobes": "MPI_Iprobe", "testanys": "MPI_Testany", "testalls": "MPI_Testall",
         "testsomes": "MPI_Testsome", "getstatuses": "MPI_Request_get_status", "improbes": "MPI_Improbe"}
want = {names[out[i]]: int(out[i + 1]) for i in range(0, len(out), 2)}
# a call's site: its marked line, or the line the binary's debug
# information gives that call (mpi_test_ or MPI_Test: MPI_Test)
marks = {k: int(v) for k, v in (l.split("=") for l in sys.argv[4].split()) if v}
kinds = {"TEST": "MPI_Test", "IPROBE": "MPI_Iprobe", "TESTANY": "MPI_Testany", "TESTALL": "MPI_Testall",
         "TESTSOME": "MPI_Testsome", "GETSTATUS": "MPI_Request_get_status", "IMPROBE": "MPI_Improbe"}
lines = {kinds[k[:-len("_LINE")]]: {v} for k, v in marks.items()}
for l in sys.argv[6].split():
    sym, _, v = l.partition("=")
    name = "MPI_" + sym[4].upper() + sym[5:].rstrip("_").lower()
    if name in lines and v.isdigit() and int(v) > 0:  # 0: addr2line found no line
        lines[name].add(int(v))
src = sys.argv[5]
rows = {r["rank"]: r for r in p["ranks"]["rows"]}
for name, calls in want.items():
    c = [c for c in rows[1]["mpi_calls"] if c["name"] == name]
    assert c and c[0]["calls"] == calls, (name, calls, rows[1]["mpi_calls"])
    t = c[0]["time_ns"]
    assert t["quality"] == "estimated" and "calls timed" in t["reason"] and t["value"] > 0, (name, t)
    site = c[0]["sites"][0]
    assert site["calls"] == calls and site["line"] in lines[name] and site["file"].endswith(src), (name, site)
assert rows[1]["mpi"]["quality"] == "estimated" and "polling calls are timed 1 in" in rows[1]["mpi"]["reason"], rows[1]["mpi"]
assert p["ranks"]["mpi_fraction"]["quality"] == "estimated", p["ranks"]["mpi_fraction"]
# nothing of ours, by library or internal name, anywhere the user looks
ours = re.compile(r"libnunatak|libscope_profiler|nunatak_mpi|nunatak_ompt|\bnk_[a-z_]+|\bsp__")
for key in ("hotspots", "others", "unresolved", "flame", "inline_view", "offcpu_hotspots", "ranks"):
    text = json.dumps(p.get(key))
    m = ours.search(text)
    assert not m, (key, text[max(0, m.start() - 200):m.end() + 100])
db = sqlite3.connect(sys.argv[2])
for table, cols in (("hotspots", ("name", "module")), ("frames", ("function", "file")),
                    ("stack_frames", ("module", "function")), ("mpi_sites", ("module", "function"))):
    for c in cols:
        for (v,) in db.execute(f"SELECT {c} FROM {table} WHERE {c} IS NOT NULL"):
            assert not ours.search(v), (table, c, v)
# the probe's own samples show as the MPI function it wraps (one Hotspot
# per function: its C and Fortran entry points alike)
probe = db.execute("SELECT module, name FROM hotspots WHERE module LIKE '[mpi:%'").fetchall()
assert probe and all(m == f"[mpi:{n}]" for m, n in probe), probe
assert len(probe) == len(set(probe)), probe
assert ("[mpi:MPI_Test]", "MPI_Test") in probe, probe
n = db.execute("SELECT SUM(m.sample_count) FROM measurements m JOIN hotspots h ON h.id = m.hotspot "
               "WHERE h.module LIKE '[mpi:%' AND m.counter = 'task-clock'").fetchone()[0]
assert n and n > 0, n
# the probe's own cost: per rank, with the calls that cost it and the option
probe = p["ranks"]["mpi_probe"]
assert probe and probe["rank"] == 1 and probe["fraction"]["quality"] == "estimated", probe
# the calls named as its cause: the heavy polls (the 1000-call ones of the
# Fortran program's phase 3 cost too little to be named)
heavy = {k: v for k, v in want.items() if v >= 100000}
assert {c["name"]: c["calls"] for c in probe["calls"]} == heavy, (probe, heavy)
assert probe["option"] == "--mpi-skip " + ",".join(c["name"] for c in probe["calls"]), probe
assert probe["stated"] == (probe["fraction"]["value"] > 0.01), probe
print(f"{want} (estimated time); {n} samples in the probe, shown as MPI; "
      f"the probe's cost {100 * probe['fraction']['value']:.2f}% of rank 1's time")
open(sys.argv[1] + ".stated", "w").write("1" if probe["stated"] else "0")
open(sys.argv[1] + ".option", "w").write(probe["option"])
PY
option=$(cat "$tmp/payload.json.option")
# said in the summary exactly when above 1% (the share itself varies with the load)
if [ "$(cat "$tmp/payload.json.stated")" = 1 ]; then
	grep -q "nunatak's MPI probe took .* of rank 1's time (estimated: .* calls of MPI_Test.*); to leave those calls out of the measurement: nunatak run $option" "$tmp/err" || {
		echo "the probe's cost is not stated"; cat "$tmp/err"; exit 1; }
elif grep -q "nunatak's MPI probe took" "$tmp/err"; then
	echo "the probe's cost is stated below 1%"; cat "$tmp/err"; exit 1
fi

# 2. --mpi-skip MPI_Test: forwarded, not measured, and the rank's MPI time says so.
"$NUNATAK" run -o "$tmp/run2" --mpi-skip MPI_Test -- "$launcher" "${flags[@]}" -n 2 "$tmp/mpi_poll" 100000 \
	>"$tmp/out2" 2>"$tmp/err2" </dev/null || { echo "nunatak run --mpi-skip failed ($?)"; cat "$tmp/err2"; exit 1; }
grep -q "^rank 1 tests [0-9].* data 42$" "$tmp/out2" || { echo "application output lost"; cat "$tmp/out2"; exit 1; }
grep -qx "skipped	MPI_Test" "$tmp/run2/collect/rank-1/mpi-profile.txt" || {
	echo "the probe did not leave MPI_Test out"; cat "$tmp/run2/collect/rank-1/mpi-profile.txt"; exit 1; }
"$NUNATAK" report --json "$tmp/run2" >"$tmp/payload2.json"
python3 - "$tmp/payload2.json" <<'PY'
import json, sys
rows = {r["rank"]: r for r in json.load(open(sys.argv[1]))["ranks"]["rows"]}
assert not [c for c in rows[1]["mpi_calls"] if c["name"] == "MPI_Test"], rows[1]["mpi_calls"]
assert [c for c in rows[1]["mpi_calls"] if c["name"] == "MPI_Send"], rows[1]["mpi_calls"]
m = rows[1]["mpi"]
assert m["quality"] == "estimated" and "MPI_Test and the other calls left out of interposition" in m["reason"], m
PY
"$NUNATAK" run --mpi-skip Test -- true >/dev/null 2>"$tmp/err3" && { echo "a bad --mpi-skip was accepted"; exit 1; }
grep -q "mpi-skip expects MPI function names" "$tmp/err3" || { echo "no usage error"; cat "$tmp/err3"; exit 1; }
echo ok
