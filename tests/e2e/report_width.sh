#!/bin/bash
# the report page has no horizontal scroll at 1400 px (headless Chromium, document.documentElement.scrollWidth against the window, and no element past its right edge): a replayed Run's report at every level, and a payload with LAMMPS-sized C++ names, paths and commands
set -eu
. "$NUNATAK_SOURCE_DIR/tests/fixtures/report/chromium.sh"
corpus="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64/workload-c-debug"
[ -d "$corpus" ] || { echo "FAIL: corpus entry $corpus missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# width PAGE [HASH...]: each view of PAGE measured in a 1400 px window.
width() {
	local page=$1 hash
	shift
	python3 "$NUNATAK_SOURCE_DIR/tests/fixtures/report/inject.py" "$page" "$NUNATAK_SOURCE_DIR/tests/fixtures/report/width.js" "$page.w.html"
	for hash in "" "$@"; do
		chromium_run --window-size=1400,900 --virtual-time-budget=5000 --dump-dom \
			"file://$page.w.html$hash" >"$tmp/w.dom"
		grep -q '^WIDTH OK' "$tmp/w.dom" || {
			echo "FAIL: horizontal scroll at 1400 px in $page$hash:" >&2
			python3 -c 'import sys; print(open(sys.argv[1]).read().rsplit("<pre id=\"width\">", 1)[-1][:3000])' "$tmp/w.dom" >&2
			exit 1
		}
	done
}

# 1. A real Run's report (a replayed corpus entry): levels 1-2, the detail.
"$NUNATAK" run --replay "$corpus" -o "$tmp/run" -- ./workload >/dev/null 2>"$tmp/err.txt" ||
	{ cat "$tmp/err.txt" >&2; exit 1; }
width "$tmp/run/report.html" "#hotspot-0"

# 2. What a real C++ code gives (LAMMPS over mpirun): long template names
# without a space to break at, long module and source paths, a long command,
# long call paths and degradation messages.
python3 - "$NUNATAK_SOURCE_DIR/tests/fixtures/report/payload-rich.json" "$tmp/big/payload.json" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1], encoding="utf-8"))
names = ["LAMMPS_NS::PairLJCutCoulLongOpt::eval<1, 0, 1>(int, int, LAMMPS_NS::ThrData*)",
         "LAMMPS_NS::NPairHalfBinNewtonOmp::build(LAMMPS_NS::NeighList*)::{lambda(int)#1}::operator()(int) const",
         "std::_Rb_tree<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, "
         "std::pair<std::__cxx11::basic_string<char> const, int> >::_M_insert_unique",
         "LAMMPS_NS_FixNHIntelAccelerated_remap_a_very_long_identifier_without_any_space_to_break_at"]
lib = "/home/user/src/lammps-stable_2Aug2023_update3/build-omp-intel/liblammps_with_a_very_long_name.so.0"
src = "/home/user/src/lammps-stable_2Aug2023_update3/src/OPENMP/pair_lj_cut_coul_long_omp_and_more.cpp"
p["run"]["command"] = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-n", "2",
                       "/home/user/src/lammps-stable_2Aug2023_update3/build-omp-intel/lmp",
                       "-in", "/home/user/benchmarks/in.lj.with.a.rather.long.input.file.name"]
p["run"]["app"] = p["run"]["command"][5:]
for i, h in enumerate(p["hotspots"]):
    h["name"], h["module"], h["source_file"] = names[i % 4], lib, src
    for s in h.get("source", []):
        if s.get("text"):
            s["text"] = "x = " + "very_long_identifier_" * 20 + ";\n" + s["text"]
    for f in h.get("inline_frames", []):
        f["function"], f["file"] = names[2], src
    for c in h.get("callers", []):
        c["name"] = names[1]
    h["regions"] = [{"path": " > ".join(["timestep_with_a_long_region_name"] * 8), "share": 0.9}]
p["inline_view"] = [{"function": names[2], "file": src, "line": 2000, "share": 0.3, "sites": 3}]
for d in p["degradations"]:
    d["message"] = (d.get("message") or "") + " " + lib
# The MPI-by-rank table at its widest: 8 MPI functions (the most it shows),
# long names, long call-site files, large times.
mpi_names = ["MPI_Allreduce", "MPI_Waitall", "MPI_Isend", "MPI_Irecv", "MPI_Barrier", "MPI_Reduce_scatter_block",
             "MPI_Alltoallv", "MPI_Neighbor_alltoallw", "MPI_Sendrecv_replace"]
wall = lambda ns: {"value": ns, "unit": "ns", "quality": "measured", "reason": None, "clock": "wall clock"}
for r in p["ranks"]["rows"]:
    r["node"] = "compute-node-with-a-long-hostname-0042.cluster.example.org"
    r["mpi"] = {"source": "interposition", "quality": "measured", "reason": None, "wall_ns": wall(36.2e9)}
    r["mpi_calls"] = [{"name": n, "calls": 1234567, "bytes": 98765432100, "time_ns": wall(12.3e9 / (k + 1)),
                       "sites": [{"file": src.replace(".cpp", "_%d.cpp" % k), "line": 12345, "function": names[0],
                                  "calls": 1234567, "time_ns": wall(12.3e9 / (k + 1))}]}
                      for k, n in enumerate(mpi_names)]
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(p, open(sys.argv[2], "w", encoding="utf-8"))
PY
"$NUNATAK" report --payload "$tmp/big/payload.json" --html 2>/dev/null
width "$tmp/big/report.html" "#hotspot-0" "#hotspot-1" "#hotspot-2" "#hotspot-3"
echo "ok: no horizontal scroll at 1400 px"
