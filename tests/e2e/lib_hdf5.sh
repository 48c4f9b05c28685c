#!/usr/bin/env bash
# libscope_profiler HDF5 output: the .h5 written beside the .spt holds the same calls in the published scope-profiler layout (read with h5py)
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
[ -f "$B/lib/libscope_profiler_h5.so" ] || { echo "skip: built without HDF5 (SP_USE_HDF5=OFF or libhdf5-dev missing)"; exit 2; }
# python3 on PATH may be a pyenv shim without Debian's python3-h5py.
py=""
for cand in python3 /usr/bin/python3; do
  if "$cand" -c "import h5py" 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with h5py (apt-get install python3-h5py)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SCOPE_PROFILER_HDF5 SCOPE_PROFILER_DISABLE || true

SCOPE_PROFILER_SAMPLE_HZ=250 SCOPE_PROFILER_PREFIX="$tmp/thr" "$B/examples/c/example_threads" 2 100 1 >/dev/null
# Finalize sorting on disk in 16-call chunks: the .h5 is copied from the written .spt in slices.
SCOPE_PROFILER_FINALIZE_CHUNK=16 SCOPE_PROFILER_SAMPLE_HZ=250 SCOPE_PROFILER_PREFIX="$tmp/spill" \
  "$B/examples/c/example_threads" 2 100 1 >/dev/null
# rank 2 of a 4-rank Open MPI job, 3 OpenMP threads asked: the metadata says so
OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=4 OMP_NUM_THREADS=3 SCOPE_PROFILER_PREFIX="$tmp/mpi" \
  "$B/examples/c/example_threads" 2 10 1 >/dev/null
cc=$(command -v cc || command -v gcc || true)
if [ -n "$cc" ] && [ "${NUNATAK_SANITIZE:-0}" != 1 ]; then
  cat >"$tmp/slash.c" <<'C'
#include <scope_profiler.h>
int main(void)
{
	const struct sp_site *r = sp_region("io/write%1");
	sp_begin(r);
	sp_end(r);
	return sp_finalize();
}
C
  "$cc" -I"$S/include" "$tmp/slash.c" -o "$tmp/slash" -L"$B/lib" -lscope_profiler -Wl,-rpath,"$B/lib"
  SCOPE_PROFILER_PREFIX="$tmp/slash" "$tmp/slash"
fi
PYTHONPATH="$S/tests/e2e" "$py" - "$tmp" <<'PY'
import os, sys
import h5py
from lib_reader import read_spt
d = sys.argv[1]
for run in ("thr", "spill"):
  t = read_spt(f"{d}/{run}_rank00000.spt")
  with h5py.File(f"{d}/{run}_rank00000.h5", "r") as f:
      md = f["metadata"].attrs
      for k in ("timestamp", "hostname", "platform", "versions", "working_directory",
                "omp_num_threads", "mpi_size", "total_cores", "user", "schema"):
          assert k in md, k
      assert md["label"] in (b"threads example", "threads example"), md["label"]
      regs = f["rank0/regions"]
      assert sorted(regs) == sorted(r["name"] for r in t["regions"]), list(regs)
      for r in t["regions"]:
          g = regs[r["name"]]
          assert g["start_times"].dtype.str.endswith("i8")
          assert list(g["start_times"][:]) == r["starts"], r["name"]
          assert list(g["end_times"][:]) == r["ends"], r["name"]
          assert list(g["lanes"][:]) == r["lanes"], r["name"]
      # the published reader's run bounds (issue 24): start_time_ns (the
      # process start) before the first region, finalize_time_ns after the
      # last, one node for one process
      first = min(min(r["starts"]) for r in t["regions"] if r["starts"])
      last = max(max(r["ends"]) for r in t["regions"] if r["ends"])
      assert 0 < md["start_time_ns"] <= first and md["finalize_time_ns"] >= last, dict(md)
      assert md["num_nodes"] == 1, dict(md)
      th = f["rank0/threads"]
      assert list(th["tid"][:]) == [x["tid"] for x in t["threads"]]
      s = f["rank0/samples"]
      # a sample weighs the timer expirations its signal stood for (si_overrun + 1)
      w = [int(x) for x in s["weight"][:]]
      assert len(w) == len(s["address"]) and all(x >= 1 for x in w), w
      assert s.attrs["ticks"] == sum(w) and 0 < s.attrs["effective_hz"] <= 250 * 1.02 + 1
      assert s.attrs["requested_hz"] == 250
      print(run, "h5 matches the .spt:", sorted(regs), sum(len(r["starts"]) for r in t["regions"]), "calls")
import socket
with h5py.File(f"{d}/mpi_rank00002.h5", "r") as f:
    md = f["metadata"].attrs
    assert md["mpi_size"] == 4, md["mpi_size"]
    assert md["omp_num_threads"] == 3, md["omp_num_threads"]
    assert "num_nodes" not in md, md["num_nodes"]  # 4 ranks, no Slurm: unknown, absent
    host = md["hostname"]
    assert (host.decode() if isinstance(host, bytes) else host) == socket.gethostname(), host
    assert "rank2" in f and "regions" in f["rank2"], list(f)
    t2 = read_spt(f"{d}/mpi_rank00002.spt")
    for r in t2["regions"]:  # exact call counts per rank
        assert len(f["rank2/regions"][r["name"]]["start_times"]) == len(r["starts"]), r["name"]
    print("metadata: mpi_size 4, omp_num_threads 3, hostname", host)
if os.path.exists(f"{d}/slash_rank00000.h5"):
    with h5py.File(f"{d}/slash_rank00000.h5", "r") as f:
        names = list(f["rank0/regions"])
        assert names == ["io%2Fwrite%251"], names
        g = f["rank0/regions/io%2Fwrite%251"]
        assert g.attrs["name"] in (b"io/write%1", "io/write%1")
        assert len(g["start_times"]) == 1
    print("'/' escaped:", names)
PY
