#!/bin/bash
# Ingestion benchmark: records a real ~1 M-sample perf.data (task-clock at a
# 10 us period around a CPU-bound C loop: ~25 s on the 2-core dev VM), then
# times `perf script` (the text the fallback path needs) against our perf
# script parser and our direct perf.data reader. Prints figures and ratios;
# asserts nothing. Usage: run.sh path/to/bench_ingest [iterations]
set -eu
BENCH=$1
ITER=${2:-2600}   # workload iterations: ~390 samples each at -c 10000
command -v perf >/dev/null || { echo "bench_ingest: perf not installed"; exit 0; }
W=$(mktemp -d /tmp/nunatak-bench-ingest-XXXXXX)
trap 'rm -rf "$W"' EXIT
cat > "$W/w.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char buf[1 << 20];
__attribute__((noinline)) static double work(long n)
{ double s = 0; for (long i = 0; i < n; i++) s += 1.0 / (i + 1); return s; }
int main(int c, char **v)
{
	long n = c > 1 ? atol(v[1]) : 50; double s = 0;
	for (long k = 0; k < n; k++) { memset(buf, (int)k, sizeof buf); s += work(200000) + buf[k]; }
	printf("%f\n", s); return 0;
}
C
cc -O2 -g -o "$W/w" "$W/w.c"
t0=$(date +%s.%N)
perf record -q -e task-clock -c 10000 -k CLOCK_MONOTONIC -o "$W/x.data" -- "$W/w" "$ITER" >/dev/null 2>&1 \
	|| { echo "bench_ingest: perf cannot record here"; exit 0; }
t1=$(date +%s.%N)
echo "recorded $(du -h "$W/x.data" | cut -f1) in $(awk "BEGIN { print $t1 - $t0 }") s"
calc() { awk "BEGIN { print $* }"; }
timeit() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); calc "$e - $s"; }
tA=$(timeit sh -c "perf script -i '$W/x.data' -F tid,time,ip,sym,symoff,dso > '$W/a.txt' 2>/dev/null")
tB=$(timeit sh -c "perf script -i '$W/x.data' --show-mmap-events --show-task-events \
	-F comm,pid,tid,time,period,event,ip,dso > '$W/b.txt' 2>/dev/null")
tC=$(timeit sh -c "perf script -i '$W/x.data' --show-mmap-events --show-task-events \
	-F comm,pid,tid,time,period,event,ip,sym,symoff,dso > '$W/c.txt' 2>/dev/null")
n=$(grep -c 'task-clock:' "$W/b.txt")
printf 'perf script -F tid,time,ip,sym,symoff,dso            %8.3f s  %6.2f M samples/s\n' "$tA" "$(calc "$n / $tA / 1000000")"
printf 'perf script (fallback fields, no sym)                 %8.3f s  %6.2f M samples/s\n' "$tB" "$(calc "$n / $tB / 1000000")"
printf 'perf script (fallback fields + sym,symoff)            %8.3f s  %6.2f M samples/s\n' "$tC" "$(calc "$n / $tC / 1000000")"
out=$("$BENCH" "$W/x.data" "$W/b.txt" "$W/c.txt")
echo "$out"
tD=$(echo "$out" | awk '/^direct/ {print $3}')
tP=$(echo "$out" | awk '/^script parser/ {print $3; exit}')
printf 'ratio: direct reader vs perf script -F tid,...,dso:  %.1fx faster\n' "$(calc "$tA / $tD")"
printf 'ratio: direct reader vs fallback path (perf script + our parser): %.1fx faster\n' \
	"$(calc "($tB + $tP) / $tD")"
