#!/bin/bash
# nunatak run with real perf when symbolization misbehaves: a hanging llvm-symbolizer is cut off ([symbolizer] timeout), a binary deleted during the run is named unreadable (both Runs complete with their samples), and a second Ctrl-C during post-processing abandons the Run at once, marked so, ending the tools still running
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
# A second Ctrl-C during post-processing (held up by a symbolizer that hangs
# for 20 s): the first says it is finishing, the second abandons at once;
# the provisional manifest, written when the application ended, becomes the
# abandoned one.
printf '[tools]\nllvm-symbolizer = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/faults/symbolizer_hang.sh" > nunatak.toml
set -m
SYMBOLIZER_HANG_S=23.7 "$NUNATAK" run --collector perf -o "$WORK/r-post" -- ./faulty exit 0 > out.txt 2> err-post.txt &
NPID=$!
for _ in $(seq 600); do
	grep -qs '"status": "incomplete"' r-post/manifest.json && break
	sleep 0.1
done
grep -qs '"status": "incomplete"' r-post/manifest.json || fail "no provisional manifest before post-processing"
kill -INT $NPID
# until its handler has taken it (the handler says so): a second SIGINT sent
# sooner could merge with the first while still pending (bounded, not timed)
for _ in $(seq 600); do
	grep -qs "interrupt again to abandon post-processing" err-post.txt && break
	sleep 0.1
done
kill -0 $NPID 2>/dev/null || fail "one interrupt during post-processing ended nunatak"
kill -INT $NPID
set +e; wait $NPID; rc=$?; set -e
set +m
[ "$rc" -eq 130 ] || fail "a second interrupt during post-processing: exit $rc, expected 130"
# the hanging symbolizer (nunatak's child; the signals went to nunatak alone)
# is ended with it, not left behind
for _ in $(seq 50); do pgrep -f "sleep 23.7" >/dev/null || break; sleep 0.1; done
pgrep -f "sleep 23.7" >/dev/null && fail "the hanging symbolizer outlived the abandoned Run"
grep -q "interrupt again to abandon post-processing" err-post.txt || fail "the first interrupt said nothing"
python3 - r-post <<'PY' || fail "the Run abandoned during post-processing is not marked so"
import json, os, sys
m = json.load(open(os.path.join(sys.argv[1], "manifest.json")))
assert m["run"]["status"] == "abandoned" and m["run"]["exit_code"] == 0, m["run"]
assert "abandoned by a second interrupt" in m["run"]["outcome"], m["run"]
assert not os.path.exists(os.path.join(sys.argv[1], ".manifest-abandoned.json"))
PY
rm -f nunatak.toml
echo "ok: hanging symbolizer cut off, deleted module named, post-processing abandoned by a second interrupt"
