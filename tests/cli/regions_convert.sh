#!/usr/bin/env bash
# regions convert: all ranks merged into one HDF5 file, read back by h5py (published layout) and by inspect
set -eu
. "$NUNATAK_SOURCE_DIR/tests/cli/regions_lib.bash"
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c "import h5py" 2>/dev/null; then py=$p; break; fi
done
mkdir run th
python3 "$mk" small run 3
# A region name that would nest groups or be an invalid link name.
python3 - "$NUNATAK_SOURCE_DIR/tests/cli" <<'PY'
import sys; sys.path.insert(0, sys.argv[1]); import regions_mktrace as m
m.spt("run/run_rank00000.spt", 0, [("main", "main.c", 10, [(0, 100000)]),
      ("init", "main.c", 20, [(1000, 10000)]), ("solve", "solve.c", 5, [(10000, 60000), (60000, 90000)]),
      ("dot", "solve.c", 30, [(11000, 20000), (20000, 30000), (30000, 40000), (61000, 70000)]),
      ("axpy", "solve.c", 40, [(40000, 59000)]), (".io/write%", None, -1, [(1, 5)])])
PY
python3 "$mk" threads th/t_rank00000.spt
if ! "$NUNATAK" regions convert run -o merged.h5 2>err.txt; then
	if grep -q "built without HDF5" err.txt; then echo "skip: this nunatak was built without HDF5"; exit 2; fi
	fail "convert: $(cat err.txt)"
fi
[ -z "$(ls -A | grep '\.tmp\.')" ] || fail "temporary file left behind"

# inspect reads the merged file back to the same numbers as the traces.
"$NUNATAK" regions inspect run --json >a.json
"$NUNATAK" regions inspect merged.h5 --json >b.json
python3 - a.json b.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b): d.pop("run")
assert a == b, "h5 round trip changed the summary"
PY
# The library's HDF5 build writes <prefix>_rankN.h5 beside each .spt: the
# pair is one rank, not a duplicate.
mkdir twins
cp run/run_rank00001.spt twins/
"$NUNATAK" regions convert run/run_rank00001.spt -o twins/run_rank00001.h5
"$NUNATAK" regions inspect twins --columns region,calls >tw.txt || fail "twins refused: $(cat tw.txt)"
grep -qE "^dot +4$" tw.txt || fail "twins counted twice: $(cat tw.txt)"
cp twins/run_rank00001.h5 twins/other_rank00001.h5
if "$NUNATAK" regions inspect twins 2>err.txt; then fail "a real duplicate rank was accepted"; fi
grep -q "both claim rank 1" err.txt || fail "duplicate message: $(cat err.txt)"
# Lanes and thread names survive the round trip.
"$NUNATAK" regions convert th -o th.h5
"$NUNATAK" regions tree th/t_rank00000.spt >t1.txt
"$NUNATAK" regions tree th.h5 >t2.txt
cmp -s t1.txt t2.txt || fail "tree differs after convert: $(diff t1.txt t2.txt)"

[ -n "$py" ] || { echo "skip: no python3 with h5py to check the layout (apt-get install python3-h5py)"; exit 2; }
"$py" - merged.h5 th.h5 <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
md = f["metadata"].attrs
assert int(md["schema"]) == 2 and md["writer"].startswith("nunatak ")
for k in ("timestamp", "hostname", "platform", "versions", "working_directory",
          "omp_num_threads", "mpi_size", "total_cores", "user"):
    assert k in md, k
assert int(md["mpi_size"]) == 3
assert sorted(f.keys()) == ["metadata", "rank0", "rank1", "rank2"], list(f.keys())
dot = f["rank2/regions/dot"]
assert dot["start_times"].dtype == "int64" and list(dot["start_times"][:]) == [33000, 60000, 90000, 183000]
assert list(dot["end_times"][:]) == [60000, 90000, 120000, 210000]
assert dot.attrs["source_file"] == "solve.c" and int(dot.attrs["source_line"]) == 30
odd = f["rank0/regions/%2Eio%2Fwrite%25"]
assert odd.attrs["name"] == ".io/write%" and list(odd["end_times"][:]) == [5]
t = h5py.File(sys.argv[2], "r")
assert list(t["rank0/regions/work/lanes"][:]) == [0, 1, 0, 1]
assert [x.decode() if isinstance(x, bytes) else x for x in t["rank0/threads/name"][:]] == ["main", "worker"]
assert list(t["rank0/threads/tid"][:]) == [4242, 4243]
PY

# A run of the library (rank 1 of 2, sampled): convert keeps the run's own
# metadata (the lowest rank's .h5: hostname, label, mpi_size), its samples
# and label; without the .h5, the samples still come from the .sps.
ex="$NUNATAK_BUILD_DIR/examples/c/example_threads"
if [ -f "$NUNATAK_BUILD_DIR/lib/libscope_profiler_h5.so" ] && [ -x "$ex" ]; then
	mkdir lib nolib
	OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 SCOPE_PROFILER_SAMPLE_HZ=250 \
		SCOPE_PROFILER_PREFIX="$tmp/lib/l" "$ex" 2 100 1 >/dev/null
	OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 SCOPE_PROFILER_SAMPLE_HZ=250 SCOPE_PROFILER_HDF5=0 \
		SCOPE_PROFILER_PREFIX="$tmp/nolib/l" "$ex" 2 100 1 >/dev/null
	"$NUNATAK" regions convert lib -o lib.h5
	"$NUNATAK" regions convert nolib -o nolib.h5
	"$py" - lib.h5 lib/l_rank00001.h5 nolib.h5 nolib/l_rank00001.sps "$NUNATAK_SOURCE_DIR/tests/e2e" <<'PY'
import socket, sys, h5py
sys.path.insert(0, sys.argv[5])
from lib_reader import read_sps
s = lambda v: v.decode() if isinstance(v, bytes) else v
out, own = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
md = out["metadata"].attrs
assert s(md["hostname"]) == socket.gethostname() and s(md["label"]) == "threads example", dict(md)
assert int(md["mpi_size"]) == 2, dict(md)
assert s(md["platform"]) == s(own["metadata"].attrs["platform"]), dict(md)
assert list(out["rank1/samples/address"][:]) == list(own["rank1/samples/address"][:])
assert int(out["rank1/samples"].attrs["ticks"]) == int(own["rank1/samples"].attrs["ticks"])
sps = read_sps(sys.argv[4])
no = h5py.File(sys.argv[3], "r")["rank1/samples"]
assert [int(a) for a in no["address"][:]] == [x[2] for x in sps["samples"]], "samples from .sps"
assert [int(w) for w in no["weight"][:]] == sps["weights"], "weights from .sps"
assert list(out["rank1/samples/weight"][:]) == list(own["rank1/samples/weight"][:])
assert [s(x) for x in no["region_names"][:]] == sps["regions"]
assert int(no.attrs["ticks"]) == sps["ticks"]
print("convert keeps metadata, label and samples")
PY
fi
echo ok
