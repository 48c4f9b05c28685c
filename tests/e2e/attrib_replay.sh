#!/bin/bash
# Attribution through `nunatak run --replay`: line-level main, extracts, ld.so sources not found (gcc entry); a same-named file found by name is embedded only when its declaration line names the function (gcc records no MD5), else withheld with the reason (issue 24); MD5 staleness withholds edited source (clang entry).
set -eu
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 2; }
corpus="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
for i in $(seq 1 30); do echo "/* edited line $i */"; done >"$tmp/src/workload.c"
cd "$tmp"
"$NUNATAK" run -q --replay "$corpus/workload-c-debug" -o "$tmp/debug" -- ./workload >/dev/null 2>&1
"$NUNATAK" report --json "$tmp/debug" >"$tmp/debug.json"
# the same file name, line 8 declaring reduce as the binary's line table says
mkdir -p "$tmp/vouched/src"
for i in $(seq 1 30); do
	if [ "$i" = 8 ]; then echo "static double reduce(const double *v, int n)"; else echo "/* line $i */"; fi
done >"$tmp/vouched/src/workload.c"
(cd "$tmp/vouched" && "$NUNATAK" run -q --replay "$corpus/workload-c-debug" -o "$tmp/vouched/run" \
	-- ./workload >/dev/null 2>&1)
"$NUNATAK" report --json "$tmp/vouched/run" >"$tmp/vouched.json"
"$NUNATAK" run -q --replay "$corpus/workload-c-clang" -o "$tmp/clang" \
	--source-map "/tmp/nunatak-capture-clang=$tmp/src" -- ./workload >/dev/null 2>&1
"$NUNATAK" report --json "$tmp/clang" >"$tmp/clang.json"
python3 - "$tmp" "$corpus" <<'PY'
import json, sys
tmp = sys.argv[1]
def hotspots(name):
    return {h["name"]: h for h in json.load(open(f"{tmp}/{name}.json"))["hotspots"]}
d = hotspots("debug")
main = d["main"]
assert main["resolution_level"] == "line", main["resolution_level"]
assert main["source_file"] == "/tmp/nunatak-capture-debug/workload.c", main["source_file"]
# the share computed independently from the recorded perf script periods
periods = {"main": 0, "all": 0}
for line in open(f"{sys.argv[2]}/workload-c-debug/invocations/004.stdout"):
    f = line.split()
    if len(f) < 6 or not f[3].isdigit():
        continue
    periods["all"] += int(f[3])
    if "nunatak-capture-debug/workload+" in line:
        periods["main"] += int(f[3])
want = periods["main"] / periods["all"]
assert abs(main["share"]["value"] - want) < 1e-9, (main["share"], want)
src = main["source"][0] if isinstance(main["source"], list) else main["source"]
assert src["start_line"] == 5 and src["end_line"] == 23, src
# found by its unique basename under the cwd; gcc records no MD5 and line 8
# does not declare reduce (inlined into main) there: another file, withheld
assert src["resolved_path"] == f"{tmp}/src/workload.c" and src["text"] is None, src
assert src["reason"] == (f"not embedded: {tmp}/src/workload.c has the name of the binary's "
                         "/tmp/nunatak-capture-debug/workload.c but its line 8 does not declare "
                         "reduce as the binary's line table says: another file of that name, or "
                         "one changed since the build; point at the right directory with "
                         "--source-map OLD=NEW"), src
v = {h["name"]: h for h in json.load(open(f"{tmp}/vouched.json"))["hotspots"]}["main"]["source"][0]
assert v["resolved_path"] == f"{tmp}/vouched/src/workload.c" and v["text"].startswith("/* line 5 */"), v
assert "static double reduce(" in v["text"], v
# below the floor, so not in the report: read the pivot itself
import sqlite3
db = sqlite3.connect(f"{tmp}/debug/pivot.sqlite")
rows = db.execute("select e.file, e.text, e.reason from extracts e join hotspots h on h.id = e.hotspot"
                  " where h.name = 'do_lookup_x'").fetchall()
assert rows == [("./elf/dl-lookup.c", None, "source file not found on this machine")], rows
c = hotspots("clang")["main"]
src = c["source"][0] if isinstance(c["source"], list) else c["source"]
assert src["text"] is None, src
assert src["reason"] == "source file changed since the profiled binary was built (line-table MD5 mismatch)", src
assert src["resolved_path"] == f"{tmp}/src/workload.c", src
axpy = [f for f in c["inline_frames"] if f["function"] == "axpy_element"]
assert axpy and axpy[0]["line"] == 4 and 0.1 < axpy[0]["share"]["value"] < 0.2, c["inline_frames"]
print(f"debug: main line-level {want:.4f} of cycles, extract 5-23; clang: stale source withheld")
PY
