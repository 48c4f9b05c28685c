#!/bin/bash
# docs/architecture.md, which README.md points to, names every folder of src/ and no other; docs/pipeline.md's stage table names every stage of src/run/pipeline.c, in order, with the file defining it
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

# docs/pipeline.md's stage table: every stage of the pipeline's tables
# (before[], then the collection, then after[]) is a row, in the order they
# run, naming the src/run/ file that defines its function; every row's file
# exists.
pipe=docs/pipeline.md
stages() { # the "{"name", fn}" entries of table $1 in src/run/pipeline.c
	sed -n "/^static const struct stage $1\[\] = {/,/^};/p" src/run/pipeline.c |
		grep -o '{"[a-z-]*", *stage_[a-z_]*}' | tr -d '{}",' | awk '{print $1, $2}'
}
order=$( { stages before; echo "collect stage_collect"; stages after; } )
[ "$(echo "$order" | wc -l)" -gt 10 ] || fail "could not read the stage tables of src/run/pipeline.c"
rows=$(grep -E '^\| [0-9]+ \|' "$pipe" | awk -F'|' '{gsub(/[* ]/, "", $3); gsub(/ /, "", $4); print NR, $3, $4}')
[ -n "$rows" ] || fail "$pipe has no stage table"
while read -r _ name file; do
	[ -f "src/run/$file" ] || fail "$pipe: stage $name is in src/run/$file, which does not exist"
done <<<"$rows"
last=0
while read -r name fn; do
	row=$(awk -v n="$name" '$2 == n' <<<"$rows")
	[ -n "$row" ] || fail "$pipe: the stage table has no row for stage $name ($fn)"
	read -r at _ file <<<"$row"
	grep -q "^int $fn(" "src/run/$file" || fail "$pipe: stage $name: $fn is not defined in src/run/$file"
	[ "$at" -gt "$last" ] || fail "$pipe: stage $name is out of order in the stage table"
	last=$at
done <<<"$order"
echo ok
