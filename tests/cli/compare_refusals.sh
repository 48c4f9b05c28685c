#!/bin/bash
# compare refuses what is not comparable (two Machine identities, rank counts, time bases) with exit 125 and a JSON error, --force turns Machine and rank refusals into flags; Runs found by name under runs_dir; identical Runs show no change; usage errors. Runs replayed from the corpus, modified copies made with python3.
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
corpus="$NUNATAK_CORPUS_DIR/recordings/perf/6.14.11/linux-x86_64"
[ -d "$corpus/workload-c" ] || { echo "FAIL: corpus entry $corpus/workload-c not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.err; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done; exit 1; }
expect_rc() { # expect_rc CODE OUT ARGS...
	local want=$1 out=$2 rc=0
	shift 2
	"$NUNATAK" compare "$@" >"$out" 2>"${out%.*}.err" || rc=$?
	[ "$rc" = "$want" ] || fail "compare $*: exit $rc, expected $want"
}
# Two Runs of the same recording under runs_dir, named wl; a third of another.
"$NUNATAK" run -q --replay "$corpus/workload-c" --name wl -- ./workload >/dev/null 2>r1.err
"$NUNATAK" run -q --replay "$corpus/workload-c" -o "$tmp/r2" -- ./workload >/dev/null 2>r2.err
"$NUNATAK" run -q --replay "$corpus/workload-c-stacks" -o "$tmp/stacks" -- ./workload >/dev/null 2>r3.err
r1=$(ls -d .nunatak/wl-*)
[ -d "$r1" ] || fail "no Run named wl"

# By name (the newest Run named wl) against a path; identical data: no change.
expect_rc 0 same.json --json --no-html --fail-on-regression 0 wl r2
python3 - <<'PY'
import json
d = json.load(open("same.json"))
assert d["comparable"] and d["time_base"] == "cycles" and d["unit"] == "cycles", d
assert d["a"]["runs"][0]["path"].startswith(".nunatak/wl-"), d["a"]
assert d["hotspots"] and all(h["ratio"] == 1 and not h["significant"] for h in d["hotspots"]), d["hotspots"]
assert all(h["build_id_same"] for h in d["hotspots"]), d["hotspots"]
PY

# A copy of the Run made on another Machine (CPU model and core count
# changed, its identity recomputed as docs/run-format.md defines it).
cp -r r2 other-machine
python3 - <<'PY'
import hashlib, json
p = "other-machine/manifest.json"
doc = json.load(open(p))
m = doc["machine"]
m["cpu_model"], m["logical_cores"] = "AMD EPYC 9654 96-Core Processor", 192
a = m["allocation"]
key = {k: m[k] for k in ("system", "architecture", "cpu_model", "logical_cores")}
key.update({k: a[k] for k in ("visible_cores", "affinity_mask", "cpu_quota", "memory_limit_bytes")})
m["identity"] = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
json.dump(doc, open(p, "w"), indent=2)
open("other-id", "w").write(m["identity"])
PY
expect_rc 125 machine.txt r2 other-machine
grep -q "Runs from two Machines" machine.err || fail "no Machine refusal message"
grep -q "$(cat other-id)" machine.err || fail "the other Machine's identity is not named"
grep -q -- "--force" machine.err || fail "the refusal does not say how to go on"
[ ! -s machine.txt ] || fail "a refused comparison printed a table"
[ ! -e other-machine/report-compare.html ] || fail "a refused comparison wrote a page"
expect_rc 125 machine.json --json r2 other-machine
expect_rc 0 forced.json --json --force --no-html r2 other-machine

# A copy announcing 4 ranks: rank counts differ.
cp -r r2 four-ranks
python3 -c '
import json; p = "four-ranks/manifest.json"; d = json.load(open(p))
d["run"]["world_size"] = 4; json.dump(d, open(p, "w"))'
expect_rc 125 ranks.json --json r2 four-ranks
grep -q "different rank counts" ranks.err || fail "no rank-count refusal message"

# Another recording: another Machine and another time base (task-clock);
# the time base cannot be forced.
expect_rc 125 tb.json --json --force r2 stacks
grep -q "different time bases" tb.err || fail "no time-base refusal message"

# Usage and lookup errors.
expect_rc 125 missing.json --json r2 no-such-run
expect_rc 125 usage.json --json r2
expect_rc 125 usage2.json r2 -- 
expect_rc 125 usage3.json --json --fail-on-regression -5 r2 r2

# Out of memory anywhere (the Nth allocation fails): a clean error or a
# complete answer, never a crash (nor a leak, under the ASan pass).
for n in $(seq 1 37 1400); do
	rc=0
	NUNATAK_FAIL_ALLOC=$n "$NUNATAK" compare --json --no-html wl r2 >oom.json 2>oom.err || rc=$?
	case $rc in
	0) python3 -c 'import json,sys; d = json.load(open("oom.json")); assert d["hotspots"], d' ||
		fail "allocation $n: exit 0 with an incomplete document" ;;
	125) grep -q "out of memory" oom.err || fail "allocation $n: exit 125 without saying why" ;;
	*) fail "allocation $n failed: exit $rc" ;;
	esac
done

python3 - "$NUNATAK_SOURCE_DIR/docs/schemas/compare.json" <<'PY'
import json, sys
def load(n): return json.load(open(n))
m = load("machine.json")
assert not m["comparable"] and m["error"]["code"] == "compare.machine", m.get("error")
assert m["hotspots"] == [] and m["total"] is None and m["regression"]["exit_code"] == 125
assert [n for n in m["notes"] if n["code"] == "compare.machine" and n["refusal"] and not n["forced"]]
f = load("forced.json")
assert f["comparable"] and f["hotspots"], f["notes"]
assert [n for n in f["notes"] if n["code"] == "compare.machine" and n["forced"]], f["notes"]
r = load("ranks.json")
assert r["error"]["code"] == "compare.ranks" and "0 rank(s)" in r["error"]["message"], r["error"]
t = load("tb.json")
assert not t["comparable"] and [n for n in t["notes"] if n["code"] == "compare.time_base" and not n["forced"]]
assert load("missing.json")["error"]["code"] == "run.not_found"
assert load("usage.json")["error"]["code"] == "usage"
assert load("usage3.json")["error"]["code"] == "usage"
try:
    import jsonschema
except ImportError:
    sys.exit(0)
schema = json.load(open(sys.argv[1]))
for n in ("same", "machine", "forced", "ranks", "tb", "missing", "usage"):
    jsonschema.validate(load(n + ".json"), schema, cls=jsonschema.Draft202012Validator)
PY
echo ok
