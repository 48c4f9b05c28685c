#!/usr/bin/env bash
# libscope_profiler streams calls to disk: a SIGKILLed run is recovered and said cut; 50 M calls stay under the RSS bound; misuse is named, counted, recorded
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
N=${NUNATAK:?}
P="$B/tests/programs/lib_stream_prog"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
unset SCOPE_PROFILER_SAMPLE_HZ SCOPE_PROFILER_DISABLE SP_LOG_LEVEL SCOPE_PROFILER_PREFIX || true

echo "== SIGKILL after 2 M recorded calls (+1000 of a thread that exited): inspect recovers them and says the trace was cut"
mkdir "$tmp/crash"
SCOPE_PROFILER_PREFIX="$tmp/crash/c" "$P" crash 2000000 >"$tmp/crash.out" &
pid=$!
for _ in $(seq 600); do grep -q recorded "$tmp/crash.out" && break; sleep 0.1; done
grep -q "recorded 2000000" "$tmp/crash.out"
kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=
"$N" regions inspect "$tmp/crash" >"$tmp/crash.txt"
cat "$tmp/crash.txt"
grep -q "rank 0: trace cut short: the process (pid [0-9]*) ended before sp_finalize; [0-9]* calls recovered" "$tmp/crash.txt"
"$N" regions inspect --json "$tmp/crash" >"$tmp/crash.json"
python3 - "$tmp/crash.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
note = d["rank_notes"][0]["truncated"]
calls = {r["name"]: r["calls"] for r in d["regions"]}
assert note["cut"] is True and note["calls_recovered"] == d["calls"], (note, d["calls"])
# 2 M main-thread calls; at most one buffer (16384 calls) was still in memory
assert 0.9 * 2000000 <= calls["step"] + calls["work"] <= 2000000, calls
# whole calls only; a periodic flush may fall between a work and its step
assert 0 <= calls["work"] - calls["step"] <= 1, calls
assert calls["worker"] == 1000, calls                    # the exited thread flushed at exit
assert note["bytes_used"] <= note["bytes_total"] and note["last_end_ns"] > 0, note
print("recovered %.2f %% of 2 M calls" % (100.0 * (calls["step"] + calls["work"]) / 2e6))
PY

echo "== a torn last frame is ignored, the rest still recovered"
f="$tmp/crash/c_rank00000.spt"
size=$(stat -c %s "$f")
truncate -s $((size - 1000)) "$f"
"$N" regions inspect --json "$tmp/crash" | python3 -c '
import json, sys
d = json.load(sys.stdin); t = d["rank_notes"][0]["truncated"]
assert t["bytes_total"] > t["bytes_used"], t
assert d["calls"] >= 1900000, d["calls"]
print("torn frame ignored:", t["bytes_total"] - t["bytes_used"], "bytes")'

# 50 M calls; 10 M in the sanitizer pass, where the same bounds hold and the
# 800 MB trace's finalize and inspect under ASan took over 600 s at load 22
calls=50000000
[ "${NUNATAK_SANITIZE:-0}" = 1 ] && calls=10000000
echo "== $calls calls: peak RSS under 64 MiB (getrusage) while recording and through sp_finalize; all of them in the finished trace"
line=$(SCOPE_PROFILER_PREFIX="$tmp/rss/r" "$P" rss "$calls" "$tmp/rss/r_rank00000.spt")
echo "$line"
rss=$(echo "$line" | sed -n 's/^calls.*maxrss_kib \([0-9]*\).*/\1/p')
bytes=$(echo "$line" | sed -n 's/.*trace_bytes \([0-9]*\).*/\1/p')
[ "$rss" -lt $((64 * 1024)) ] || { echo "peak RSS $rss KiB >= 64 MiB while recording"; exit 1; }
# every call but the last buffer is in the unfinished trace (24 B a call)
[ "$bytes" -ge $(( (calls - 16384) * 24 )) ] || { echo "only $bytes bytes on disk"; exit 1; }
# finalize sorts on disk in chunks (lib/spill.h): its peak stays under the same bound
echo "$line" | grep -q "^finalized rc 0 " || { echo "sp_finalize failed"; exit 1; }
rss=$(echo "$line" | sed -n 's/^finalized.*maxrss_kib \([0-9]*\).*/\1/p')
[ "$rss" -lt $((64 * 1024)) ] || { echo "peak RSS $rss KiB >= 64 MiB through sp_finalize"; exit 1; }
spt=$(echo "$line" | sed -n 's/.*spt_bytes \([0-9]*\).*/\1/p')
[ "$spt" -ge $((calls * 16)) ] || { echo "finished trace of $spt bytes: calls lost"; exit 1; }
ls "$tmp/rss" | grep -v "^r_rank00000\.spt$" && { echo "scratch or temporary files left beside the trace"; exit 1; }
"$N" regions inspect --json "$tmp/rss" | python3 -c '
import json, sys
n = int(sys.argv[1])
d = json.load(sys.stdin)
assert d["calls"] == n and [r["calls"] for r in d["regions"]] == [n], d["calls"]
print("finished trace: %d calls" % n)' "$calls"
rm -rf "$tmp/rss"

echo "== finalize sorting on disk (3 threads, recursion, 1000-call chunks) and in memory: every call, in the seed's order, recursion nested (unit test_spill: the same bytes)"
for chunk in 1000 1000000; do
  SCOPE_PROFILER_FINALIZE_CHUNK=$chunk SCOPE_PROFILER_PREFIX="$tmp/mix$chunk/m" "$P" mix 300000
  ls "$tmp/mix$chunk" | grep -v "^m_rank00000\.spt$" && { echo "files left beside the trace"; exit 1; }
  PYTHONPATH="$S/tests/e2e" python3 - "$tmp/mix$chunk/m_rank00000.spt" <<'PY'
import sys
from lib_reader import read_spt
t = read_spt(sys.argv[1])
R = {r["name"]: r for r in t["regions"]}
got = {k: len(v["starts"]) for k, v in R.items()}
assert t["version"] == 3 and len(t["threads"]) == 3, (t["version"], t["threads"])
assert got == {"mix_a": 75000, "mix_rec": 225000}, got
for name, r in R.items():  # the seed's order: by start, the longer first at equal starts
    keys = list(zip(r["starts"], [-e for e in r["ends"]]))
    assert keys == sorted(keys), name
    assert set(r["lanes"]) == {0, 1, 2}, name
    for lane in range(3):  # every lane: 3-deep recursion nests
        own = [(s, e) for s, e, l in zip(r["starts"], r["ends"], r["lanes"]) if l == lane]
        if name == "mix_rec":
            for i in range(0, len(own), 3):
                (s0, e0), (s1, e1), (s2, e2) = own[i:i + 3]
                assert s0 <= s1 <= s2 and e2 <= e1 <= e0, (lane, own[i:i + 3])
print(sys.argv[1].split("/")[-2], "ok:", got)
PY
  "$N" regions inspect --json "$tmp/mix$chunk" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert {r["name"]: r["calls"] for r in d["regions"]} == {"mix_a": 75000, "mix_rec": 225000}, d["regions"]'
done

echo "== misuse: stderr names each kind, inspect --json counts them, recursion 300 deep is whole"
mkdir "$tmp/mis"
SCOPE_PROFILER_PREFIX="$tmp/mis/m" "$P" misuse 2>"$tmp/mis.err"
cat "$tmp/mis.err"
grep -q "misuse: sp_end of a region that was not open (ignored): 2 ('never_opened' x1, 'inner' x1)" "$tmp/mis.err"
grep -q "misuse: sp_end of a region that was not the innermost open one .*: 1 ('outer' x1)" "$tmp/mis.err"
grep -q "misuse: inner regions discarded by an out-of-order sp_end (not recorded): 1 ('inner' x1)" "$tmp/mis.err"
grep -q "misuse: regions still open at finalize (not recorded): 1 ('left_open' x1)" "$tmp/mis.err"
[ "$(grep -c misuse: "$tmp/mis.err")" = 4 ]   # one line per kind
"$N" regions inspect "$tmp/mis" >"$tmp/mis.txt"
grep -q "rank 0: misuse: regions still open at finalize (not recorded): 1 ('left_open' x1)" "$tmp/mis.txt"
# timing context: init to finalize, startup, the thread's wall and CPU time
grep -qE "^rank 0: library init to finalize [0-9.]+ (us|ms|s), startup \(process start to the first region\) [0-9.]+ (us|ms|s); thread 0 wall [0-9.]+ (us|ms|s) \(first to last region\), CPU [0-9.]+ (us|ms|s) \(whole thread\)$" "$tmp/mis.txt"
"$N" regions inspect --json "$tmp/mis" >"$tmp/mis.json"
python3 - "$tmp/mis.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["rank_notes"][0]["misuse"]
assert m["end_unopened"] == {"count": 2, "regions": {"never_opened": 1, "inner": 1}}, m
assert m["end_not_innermost"] == {"count": 1, "regions": {"outer": 1}}, m
assert m["discarded_inner"] == {"count": 1, "regions": {"inner": 1}}, m
assert m["left_open"] == {"count": 1, "regions": {"left_open": 1}}, m
calls = {r["name"]: r["calls"] for r in d["regions"]}
assert calls["recursive"] == 300 and calls["outer"] == 1, calls
t = d["rank_notes"][0]["timing"]
assert t["finalize_ns"] > t["init_ns"] and t["threads"][0]["cpu_ns"] > 0, t
assert t["startup_ns"] > 0 and t["session_ns"] == t["finalize_ns"] - t["init_ns"], t
th = t["threads"][0]
assert th["first_ns"] >= t["init_ns"] and th["last_ns"] <= t["finalize_ns"], (th, t)
print("misuse recorded:", sorted(m))
PY
SP_LOG_LEVEL=error SCOPE_PROFILER_PREFIX="$tmp/mis/q" "$P" misuse 2>"$tmp/quiet.err"
[ ! -s "$tmp/quiet.err" ]   # SP_LOG_LEVEL=error silences the warnings
echo "ok"
