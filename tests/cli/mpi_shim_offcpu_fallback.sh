#!/bin/bash
# rank-shim --offcpu stacks as root: the rank's perf records the stacks of blocking switch-outs only (sched:sched_switch filtered on prev_state), and when perf refuses the tracepoint or its filter the rank falls back to a stack at every switch-out (context-switches), the application run once, perf.data saying which
set -eu
command -v perf >/dev/null || { echo "skip: perf is not installed"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "skip: not root: ranks of an ordinary user never try the tracepoint (e2e_mpi_offcpu_yield_user)"; exit 2; }
tp=/sys/kernel/tracing/events/sched/sched_switch/id
[ -r "$tp" ] || tp=/sys/kernel/debug/tracing/events/sched/sched_switch/id
[ -r "$tp" ] || { echo "skip: no readable tracefs here: ranks never try the tracepoint"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -q -o "$tmp/probe.data" -e 'sched:sched_switch/call-graph=fp/' --filter 'prev_state != 0' \
	-e context-switches/period=1,call-graph=fp/ --switch-events -- true >/dev/null 2>&1 || {
	echo "skip: perf cannot record the switches' stacks here"; exit 2; }
rank() { # dir perf -- command...
	local d=$1 p=$2
	shift 2
	mkdir -p "$d"
	env -i PATH="$PATH" HOME="$tmp" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 \
		OMPI_COMM_WORLD_LOCAL_RANK=0 "$NUNATAK" rank-shim --directory "$d" \
		--rank-threshold 1 --perf "$p" --offcpu stacks "$@"
}
app="echo ran >>'$tmp/runs'; sleep 0.05"

# 1. perf accepts the tracepoint: the rank's perf.data holds it, not context-switches.
rank "$tmp/ok" perf -- sh -c "$app" </dev/null
perf evlist -i "$tmp/ok/rank-0/perf.data" >"$tmp/ev1" 2>/dev/null
grep -qx "sched:sched_switch" "$tmp/ev1" && ! grep -q "context-switches" "$tmp/ev1" || {
	echo "the rank did not record the blocking switch-outs' tracepoint:"; cat "$tmp/ev1"; exit 1; }

# 2. A perf that refuses the tracepoint (as perf does an event it cannot open:
# before the application, no perf.data): the rank records context-switches.
mkdir "$tmp/fake"
cat >"$tmp/fake/perf" <<SH
#!/bin/bash
echo "\$*" >>"$tmp/calls"
for a in "\$@"; do
	case \$a in sched:sched_switch*) echo "fake perf: event syntax error: 'sched:sched_switch'" >&2; exit 129 ;; esac
done
exec perf "\$@"
SH
chmod +x "$tmp/fake/perf"
: >"$tmp/runs"
rank "$tmp/fb" "$tmp/fake/perf" -- sh -c "$app" </dev/null
[ "$(wc -l <"$tmp/runs")" = 1 ] || { echo "the application ran $(wc -l <"$tmp/runs") times, expected once"; exit 1; }
grep -q "record.*sched:sched_switch/call-graph=fp/ --filter prev_state != 0" "$tmp/calls" || {
	echo "the rank never asked for the tracepoint:"; cat "$tmp/calls"; exit 1; }
grep "record" "$tmp/calls" | tail -1 | grep -q "context-switches/period=1,call-graph=fp/" || {
	echo "the rank did not fall back to context-switches:"; cat "$tmp/calls"; exit 1; }
perf evlist -i "$tmp/fb/rank-0/perf.data" >"$tmp/ev2" 2>/dev/null
grep -q "context-switches" "$tmp/ev2" && ! grep -q "sched:sched_switch" "$tmp/ev2" || {
	echo "the fallback's perf.data:"; cat "$tmp/ev2"; exit 1; }
echo ok
