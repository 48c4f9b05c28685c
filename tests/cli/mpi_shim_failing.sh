#!/bin/bash
# rank-shim with perf: a failing application keeps its exit code, output and signal; counting ranks count; perf failing before launch never runs the application twice
set -eu
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
perf stat -e task-clock -o /dev/null -- true 2>/dev/null &&
	perf record -q -o /dev/null -- true 2>/dev/null || {
	echo "skip: perf cannot count or sample here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid))"
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/collect"
rank() { # rank size local_rank -- command...
	local r=$1 n=$2 l=$3
	shift 3
	env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$n \
		OMPI_COMM_WORLD_LOCAL_RANK=$l "$NUNATAK" rank-shim --directory "$tmp/collect" \
		--rank-threshold 2 "$@"
}
app="echo ran >>'$tmp/runs'; echo out; echo err >&2; exit 5"

# Rank 0 samples (rank 0 always does): the application fails with 5.
set +e
rank 0 8 0 -- sh -c "$app" >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" -eq 5 ] || { echo "sampled rank: exit code $rc, expected 5"; cat "$tmp/err"; exit 1; }
[ "$(cat "$tmp/out")" = "out" ] && [ "$(cat "$tmp/err")" = "err" ] || {
	echo "sampled rank: output changed"; cat "$tmp/out" "$tmp/err"; exit 1; }
[ -s "$tmp/collect/rank-0/perf.data" ] || { echo "sampled rank left no perf.data"; exit 1; }

# Rank 5 (local rank 1, 8 ranks > threshold 2) counts.
set +e
rank 5 8 1 -- sh -c "$app" >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" -eq 5 ] && [ "$(cat "$tmp/out")" = "out" ] && [ "$(cat "$tmp/err")" = "err" ] || {
	echo "counting rank: exit $rc or output changed"; cat "$tmp/out" "$tmp/err"; exit 1; }
grep -qE ",task-clock(:u)?," "$tmp/collect/rank-5/perf-stat.csv" || { echo "no task-clock count"; exit 1; }

# Rank 4 is local rank 0 of its node: beyond the threshold it still samples.
rank 4 8 0 -- true
[ -s "$tmp/collect/rank-4/perf.data" ] && [ ! -e "$tmp/collect/rank-4/perf-stat.csv" ] || {
	echo "local rank 0 beyond the threshold did not sample"; exit 1; }
python3 -c "
import json; j = json.load(open('$tmp/collect/rank-5/rank.json'))
assert j['role'] == 'counter' and j['counted'] and not j['sampled'], j"

# A perf that fails before launching (as perf does on a rejected event):
# the application still runs, bare, exactly once.
mkdir "$tmp/fake"
cat >"$tmp/fake/perf" <<'SH'
#!/bin/sh
for a in "$@"; do case $a in -o) next=1 ;; *) [ "${next:-}" = 1 ] && { out=$a; next=; } ;; esac; done
[ "$1" = stat ] && printf '# started on today\n\n' >"$out"
echo "fake perf: event not supported" >&2
exit 255
SH
chmod +x "$tmp/fake/perf"
set +e
rank 0 2 0 --perf "$tmp/fake/perf" -- sh -c "$app" >"$tmp/out" 2>/dev/null; rc=$?
rank 6 8 1 --perf "$tmp/fake/perf" -- sh -c "$app" >>"$tmp/out" 2>/dev/null; rc6=$?
set -e
[ "$rc" -eq 5 ] && [ "$rc6" -eq 5 ] || { echo "bare fallback: exit $rc/$rc6, expected 5"; exit 1; }
[ "$(grep -c out "$tmp/out")" -eq 2 ] || { echo "bare fallback: output changed"; exit 1; }
python3 - "$tmp/collect" <<'PY'
import json, sys
d = sys.argv[1]
r0 = json.load(open(f"{d}/rank-0/rank.json"))
assert r0["role"] == "bare", r0
names = [x["name"] for x in r0["degradations"]]
assert names == ["rank-sampling-rejected", "rank-counting-failed"], names
r6 = json.load(open(f"{d}/rank-6/rank.json"))
assert r6["role"] == "bare" and [x["name"] for x in r6["degradations"]] == ["rank-counting-failed"], r6
PY
# 2 real runs + 2 bare fallbacks: 4, never 6.
[ "$(wc -l <"$tmp/runs")" -eq 4 ] || { echo "the application ran $(wc -l <"$tmp/runs") times, expected 4"; exit 1; }

# A signal ends the shim the way it ended the application.
set +e
rank 1 2 1 -- sh -c 'kill -TERM $$' 2>/dev/null; rc=$?
set -e
[ "$rc" -eq 143 ] || { echo "signalled application: exit $rc, expected 143"; exit 1; }
python3 -c "import json,sys; j=json.load(open('$tmp/collect/rank-1/rank.json')); assert j['term_signal']==15, j"
echo ok
