#!/bin/bash
# nunatak run with real perf when symbolization misbehaves: a hanging llvm-symbolizer is cut off ([symbolizer] timeout) and a binary deleted during the run is named unreadable; both Runs complete with their samples
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
need_perf
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/faulty" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c"
cd "$WORK"
complete() { # run-dir degradation text
	python3 - "$@" <<'PY' || fail "Run $1: not complete, or no $2"
import json, os, sqlite3, sys
run, name, text = sys.argv[1:4]
m = json.load(open(os.path.join(run, "manifest.json")))
assert m["run"]["exit_code"] == 0 and m["run"]["status"] == "complete", m["run"]
d = [x for x in m["degradations"] if x["name"] == name]
assert d and text in d[0]["message"] and d[0]["remedy"], (name, m["degradations"])
n = sqlite3.connect(os.path.join(run, "pivot.sqlite")).execute("select count(*) from measurements").fetchone()[0]
assert n > 0, "the samples were lost"
PY
}

# A symbolizer that answers --version, then hangs: stopped after 2 s.
printf '[tools]\nllvm-symbolizer = "%s"\n[symbolizer]\ntimeout = 2\n' \
	"$NUNATAK_SOURCE_DIR/tests/fixtures/faults/symbolizer_hang.sh" > nunatak.toml
"$NUNATAK" run --collector perf -o "$WORK/r-hang" -- ./faulty exit 0 > out.txt 2> err-hang.txt ||
	fail "hanging symbolizer: nunatak failed"
complete r-hang symbolizer-timeout "within 2 s and was stopped"
rm -f nunatak.toml

# The application deletes its own binary before attribution.
cp faulty doomed
"$NUNATAK" run --collector perf -o "$WORK/r-deleted" -- ./doomed unlink-self > out.txt 2> err-deleted.txt ||
	fail "deleted binary: nunatak failed"
[ ! -e doomed ] || fail "the binary was not deleted"
complete r-deleted module-unreadable "doomed cannot be read"
echo "ok: hanging symbolizer cut off, deleted module named"
