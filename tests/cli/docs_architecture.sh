#!/bin/bash
# docs/architecture.md, which README.md points to, exists and stays true: it names every folder of src/ and no src/ folder that does not exist
set -eu
cd "$NUNATAK_SOURCE_DIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
doc=docs/architecture.md
[ -f "$doc" ] || fail "$doc missing"
grep -q "docs/architecture.md" README.md || fail "README.md does not point to $doc"
for d in src/*/; do
	grep -q "\`${d}\`" "$doc" || fail "$doc does not describe ${d}"
done
for d in $(grep -o '`src/[a-z_]*/`' "$doc" | tr -d '`' | sort -u); do
	[ -d "$d" ] || fail "$doc describes $d, which does not exist"
done
echo ok
