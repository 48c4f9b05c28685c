#!/bin/bash
# nunatak run on a machine without llvm-symbolizer (hidden in a private mount namespace): GNU addr2line stands in and llvm-missing says so; without addr2line either, Hotspots stay unresolved and the Run is still complete and says why
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/e2e_lib.sh"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
command -v python3 >/dev/null || { echo "skip: python3 needed for the assertions"; exit 2; }
command -v addr2line >/dev/null || { echo "skip: GNU addr2line (binutils) not installed: the stand-in case needs it"; exit 2; }
if ! unshare -m --propagation private true 2>/dev/null; then
	echo "skip: no private mount namespace here (unshare -m needs root): the installed llvm-symbolizer cannot be hidden"
	exit 2
fi
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/faulty" "$NUNATAK_SOURCE_DIR/tests/fixtures/run/faulty.c"
cd "$WORK"
printf '#!/bin/sh\necho "not installed" >&2\nexit 127\n' > gone.sh
chmod +x gone.sh
# hide.sh WHAT...: runs the rest of its arguments with every llvm-symbolizer
# (and addr2line when WHAT is "all") replaced by gone.sh, in a private
# mount namespace: nothing outside it changes.
cat > hide.sh <<'SH'
set -e
what=$1; shift
for p in /usr/bin/llvm-symbolizer* /usr/lib/llvm-*/bin/llvm-symbolizer /usr/local/bin/llvm-symbolizer*; do
	[ -e "$p" ] && mount --bind "$PWD/gone.sh" "$p"
done
if [ "$what" = all ]; then
	for p in /usr/bin/addr2line /usr/bin/*-addr2line /usr/local/bin/addr2line; do
		[ -e "$p" ] && mount --bind "$PWD/gone.sh" "$p"
	done
fi
exec "$@"
SH
check() { # run-dir degradation text
	python3 - "$@" <<'PY' || fail "Run $1 does not name $2"
import json, os, sys
run, name, text = sys.argv[1:4]
m = json.load(open(os.path.join(run, "manifest.json")))
assert m["run"]["exit_code"] == 0 and m["run"]["status"] == "complete", m["run"]
d = [x for x in m["degradations"] if x["name"] == name]
assert d and text in d[0]["message"] and d[0]["remedy"], (name, m["degradations"])
assert "pivot" in m["files"]
PY
}
unshare -m --propagation private bash hide.sh llvm "$NUNATAK" run -o "$WORK/r-a2l" -- ./faulty exit 0 \
	> out.txt 2> err-a2l.txt || fail "without llvm-symbolizer: nunatak failed"
check r-a2l llvm-missing "GNU addr2line stands in"
unshare -m --propagation private bash hide.sh all "$NUNATAK" run -o "$WORK/r-none" -- ./faulty exit 0 \
	> out.txt 2> err-none.txt || fail "without any symbolizer: nunatak failed"
check r-none llvm-missing "no symbolizer found"
echo "ok: llvm-symbolizer missing (addr2line stands in), no symbolizer at all"
