#!/bin/bash
# provenance.dependencies names the compiler that built the application (issue 22 item 9): its ELF .comment ("GCC: (...) 12.2.0") and its DW_AT_producer with the flags (-O2) of a gcc build (with -g and without); a script target (no ELF) adds neither
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf '[tools]\nperf = "%s"\n' "$NUNATAK_SOURCE_DIR/tests/fixtures/run/fake_perf.sh" > nunatak.toml
printf 'int main(void) { return 0; }\n' > app.c
check() { # name want_comment want_producer
	"$NUNATAK" run -q -o "$tmp/run-$1" -- "./$1" </dev/null >/dev/null 2>"err-$1" || {
		cat "err-$1"; exit 1; }
	python3 - "$tmp/run-$1/manifest.json" "$2" "$3" <<'PY'
import json, sys
deps = json.load(open(sys.argv[1]))["provenance"]["dependencies"]
want_comment, want_producer = sys.argv[2], sys.argv[3]
print(sys.argv[1].split("/")[-2], {k: deps.get(k) for k in ("compiler", "compiler_producer")})
if want_comment:
    assert want_comment in deps["compiler"], deps
else:
    assert "compiler" not in deps, deps
if want_producer:
    assert want_producer in deps["compiler_producer"], deps
else:
    assert "compiler_producer" not in deps, deps
PY
}
gcc -g -O2 -o app-gcc app.c
check app-gcc "GCC: (" " -O2"
gcc -O1 -o app-nodebug app.c
check app-nodebug "GCC: (" ""
printf '#!/bin/sh\nexit 0\n' > app-script
chmod +x app-script
check app-script "" ""
echo ok
