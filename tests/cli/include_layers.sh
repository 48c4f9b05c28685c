#!/usr/bin/env bash
# src/ includes point only down the layers of docs/architecture.md, no two folders include each other, analysis/ includes no JSON library
set -eu
root=${NUNATAK_SOURCE_DIR:?}
check=$root/scripts/check_layers.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The check itself must catch each kind of violation (else it passes vacuously).
mk() { mkdir -p "$(dirname "$tmp/$1")"; printf '#include "%s"\n' "$2" >"$tmp/$1"; }
expect_fail() { # name, expected text
	if out=$("$check" "$tmp/src" "$tmp/lib" 2>&1); then
		echo "FAIL: check_layers.sh accepted $1"; exit 1
	fi
	grep -q -- "$2" <<<"$out" || { echo "FAIL: $1: expected '$2' in:"; echo "$out"; exit 1; }
}
mk src/common/a.c common/a.h
mk src/model/m.c common/a.h
"$check" "$tmp/src" "$tmp/lib" || { echo "FAIL: a clean tree was refused"; exit 1; }

mk src/common/up.c model/m.h
expect_fail "an include from a higher layer" "common/ includes model/m.h from a higher layer"
rm "$tmp/src/common/up.c"

mk src/ingest/i.c attrib/x.h
mk src/attrib/x.c ingest/i.h
expect_fail "two folders of one layer including each other" "include each other"
rm -r "$tmp/src/ingest" "$tmp/src/attrib"

mkdir -p "$tmp/src/newarea"
expect_fail "a folder without a layer" "src/newarea/: folder has no layer"
rmdir "$tmp/src/newarea"

mk src/model/bare.c m.h
expect_fail "an include without its folder" "without its folder"
rm "$tmp/src/model/bare.c"

mkdir -p "$tmp/src/analysis"
printf '#include <jansson.h>\n' >"$tmp/src/analysis/j.c"
expect_fail "JSON in analysis/" "analysis/ includes <jansson.h>"
rm -r "$tmp/src/analysis"

mk lib/w.c common/a.h
expect_fail "the library including src/" "the library includes common/a.h"
rm "$tmp/lib/w.c"

# The real tree.
if ! out=$("$check" "$root/src" "$root/lib"); then
	echo "$out"
	echo "FAIL: include layers violated (docs/architecture.md)"
	exit 1
fi
echo "ok: include layers hold"
