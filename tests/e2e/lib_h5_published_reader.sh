#!/usr/bin/env bash
# interop: the per-rank .h5 of a real 3-rank mpirun job, and the file `regions convert` merges from them, open the way the published Python scope-profiler reader opens them (schema attribute, /metadata attributes decoded, every top-level group but metadata a rank<r>, /rank<r>/regions/<name>/start_times|end_times read whole): exact call counts per rank, mpi_size 3, this hostname
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
[ -f "$B/lib/libscope_profiler_h5.so" ] || { echo "skip: built without HDF5 (SP_USE_HDF5=OFF or libhdf5-dev missing)"; exit 2; }
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed (scripts/deps.sh test installs Open MPI)"; exit 2; }
# python3 on PATH may be a pyenv shim without Debian's python3-h5py.
py=""
for cand in python3 /usr/bin/python3; do
  if "$cand" -c "import h5py, numpy" 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with h5py and numpy (apt-get install python3-h5py)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SCOPE_PROFILER_HDF5 SCOPE_PROFILER_DISABLE SCOPE_PROFILER_SAMPLE_HZ OMP_NUM_THREADS || true
mkdir "$tmp/run"
# Rank r runs r+1 worker threads of 4(r+1) rounds: every rank has its own counts.
SCOPE_PROFILER_PREFIX="$tmp/run/job" mpirun --oversubscribe --allow-run-as-root -n 3 \
  bash -c 'r=$OMPI_COMM_WORLD_RANK; exec "$0" $((r + 1)) $((4 * (r + 1))) 0' "$B/examples/c/example_threads" >/dev/null
ls "$tmp/run"
"$NUNATAK" regions convert "$tmp/run" -o "$tmp/merged.h5" >/dev/null
PYTHONPATH="$S/tests/e2e" "$py" - "$tmp/run" "$tmp/merged.h5" <<'PY'
import glob, os, socket, sys
import h5py, numpy as np
from lib_reader import read_spt

def decode(v):  # as the published reader decodes an attribute
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    if isinstance(v, np.ndarray):
        return [decode(x) for x in v.tolist()]
    return v

def published_read(path):
    """The published reader's access pattern (scope_profiler.h5reader.load_h5),
    written here from its documented behaviour: it refuses a file whose
    scope_profiler_schema attribute is not an integer <= 1, takes every
    top-level name but "metadata" for rank<int>, and reads each region's
    start_times/end_times whole with [()]."""
    out = {"metadata": {}, "ranks": {}, "lines": {}}
    lines = out["lines"]
    with h5py.File(path, "r") as f:
        schema = f.attrs.get("scope_profiler_schema", 1)
        assert isinstance(schema, (int, np.integer)) and not isinstance(schema, bool) \
            and 1 <= int(schema) <= 1, ("the published reader refuses schema", schema)
        if "metadata" in f:
            out["metadata"] = {k: decode(v) for k, v in f["metadata"].attrs.items()}
        names = sorted((n for n in f if n != "metadata"), key=lambda n: int(n.replace("rank", "")))
        for name in names:
            rank = int(name.replace("rank", ""))
            regions = {}
            if "regions" in f[name]:
                for rname, g in f[name]["regions"].items():
                    s, e = g["start_times"][()], g["end_times"][()]
                    assert s.dtype.kind == "i" and e.dtype.kind == "i" and len(s) == len(e), rname
                    assert np.all(e >= s), rname
                    if "source_lineno" in g.attrs:
                        lines[rname] = (decode(g.attrs["source_file"]), int(g.attrs["source_lineno"]))
                    regions[rname] = len(s)
            out["ranks"][rank] = regions
    return out

run, merged = sys.argv[1], sys.argv[2]
want = {}
for p in sorted(glob.glob(os.path.join(run, "job_rank*.spt"))):
    t = read_spt(p)
    want[t["rank"]] = {r["name"]: len(r["starts"]) for r in t["regions"]}
assert sorted(want) == [0, 1, 2], want
for r in range(3):  # rank r: 1 main, r+1 workers, 4(r+1) compute and wait each per worker
    w = r + 1
    assert want[r] == {"main": 1, "worker": w, "compute": 4 * w * w, "wait": 4 * w * w}, (r, want[r])
host = socket.gethostname()
for r in range(3):
    got = published_read(os.path.join(run, "job_rank%05d.h5" % r))
    assert got["ranks"] == {r: want[r]}, (r, got["ranks"])
    md = got["metadata"]
    assert md["mpi_size"] == 3 and md["hostname"] == host, md
    # SP_SCOPE regions carry their location; the reader finds it under source_lineno
    assert got["lines"]["compute"][0].endswith("threads.c") and got["lines"]["compute"][1] > 0, got["lines"]
print("per-rank files:", {r: sum(v.values()) for r, v in want.items()}, "calls")
got = published_read(merged)
assert got["ranks"] == want, got["ranks"]
md = got["metadata"]
assert md["mpi_size"] == 3 and md["hostname"] == host, md
assert got["lines"]["compute"][0].endswith("threads.c") and got["lines"]["compute"][1] > 0, got["lines"]
print("merged file: ranks", sorted(got["ranks"]), "mpi_size", md["mpi_size"], "hostname", md["hostname"])
PY
echo ok
