#!/bin/bash
# valgrind memcheck is clean on the CLI's main paths: run (perf, and the preload collector) of the bundled heat example, report, regions inspect, compare: no invalid access, no uninitialised use, no definite or indirect leak (gcc build only: valgrind cannot run ASan binaries)
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v valgrind >/dev/null || { echo "skip: valgrind not installed (apt-get install valgrind)"; exit 2; }
[ "${NUNATAK_SANITIZE:-0}" != 1 ] || { echo "skip: valgrind cannot run ASan-instrumented binaries (the gcc pass runs this)"; exit 2; }
heat="$NUNATAK_BUILD_DIR/examples/c/example_heat"
[ -x "$heat" ] || fail "examples/c not built ($heat)"
cd "$WORK"

# vg NAME ARGS...: the nunatak process itself under memcheck (the application
# and the tools it starts are not traced: they are not ours).
vg() {
	local name=$1
	shift
	valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --track-origins=yes --num-callers=30 \
		--log-file="$WORK/vg-$name.log" "$NUNATAK" "$@" >"$WORK/$name.out.txt" 2>"$WORK/$name.err.txt"
	local rc=$?
	# (the log may hold warnings, e.g. an unhandled pidfd_open: not errors)
	if [ $rc -eq 99 ] || grep -q "ERROR SUMMARY: [1-9]\|Invalid \|uninitialised\|definitely lost\|indirectly lost" "$WORK/vg-$name.log"; then
		cat "$WORK/vg-$name.log" >&2
		fail "memcheck found errors in: nunatak $*"
	fi
	return $rc
}

collector=preload
if perf record -q -e task-clock -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	collector=perf
	vg run-pre run -q --collector preload -o "$WORK/pre" -- "$heat" 64 300 0 || fail "run (preload) exit $?"
	[ -f "$WORK/pre/manifest.json" ] || fail "run (preload) wrote no manifest"
fi
rm -f "$WORK/probe.data"
vg run-a run -q --collector $collector -o "$WORK/a" -- "$heat" 64 300 0 || fail "run a exit $?"
vg run-b run -q --collector $collector -o "$WORK/b" -- "$heat" 64 300 0 || fail "run b exit $?"
[ -f "$WORK/a/report.html" ] || fail "run wrote no report.html"
vg report report --html "$WORK/a" || fail "report exit $?"
vg report-json report --json "$WORK/a" || fail "report --json exit $?"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/report-json.out.txt" ||
	fail "report --json printed no JSON"
spt=$(find "$WORK/a" -name '*.spt' | head -1)
[ -n "$spt" ] || fail "the Run kept no region trace"
vg inspect regions inspect "$spt" || fail "regions inspect exit $?"
grep -q "sweep" "$WORK/inspect.out.txt" || fail "regions inspect shows no sweep region"
vg compare compare "$WORK/a" "$WORK/b" || fail "compare exit $?"
[ -f "$WORK/b/report-compare.html" ] || fail "compare wrote no page"
echo "memcheck clean: run ($collector$([ $collector = perf ] && echo ', preload')), report, regions inspect, compare"
