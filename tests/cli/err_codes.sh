#!/usr/bin/env bash
# Error codes come from the one list (src/common/err_codes.h): no string literal as an err_set code, no token listed twice
set -eu
src=${NUNATAK_SOURCE_DIR:?}/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# err_set(e, errnum, "literal", ...) / err_setv, over line breaks; comments skipped.
literal_codes() {
	perl -0777 -ne '
		s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g;
		while (/\berr_setv?\s*\(\s*[^,;]+?,\s*[^,;]+?,\s*("[^"]*")/g) { print "$ARGV: $1\n" }
	' "$@"
}

# The check must catch a literal, also one on the next line.
printf 'int f(struct err *e) { return err_set(e, -1,\n  "made.up", "x"); }\n' >"$tmp/bad.c"
[ -n "$(literal_codes "$tmp/bad.c")" ] || { echo "FAIL: the check missed a literal code"; exit 1; }
printf 'int f(struct err *e) { return err_set(e, -1, ERR_USAGE, "x"); }\n' >"$tmp/good.c"
[ -z "$(literal_codes "$tmp/good.c")" ] || { echo "FAIL: the check flagged a listed code"; exit 1; }

bad=$(find "$src" -name '*.c' -o -name '*.h' -o -name '*.inc' | grep -v '/common/err\.[ch]$' |
	xargs perl -0777 -ne '
		s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g;
		while (/\berr_setv?\s*\(\s*[^,;]+?,\s*[^,;]+?,\s*("[^"]*")/g) { print "$ARGV: $1\n" }')
if [ -n "$bad" ]; then
	echo "$bad"
	echo "FAIL: error codes written as strings; add them to src/common/err_codes.h and use the macro"
	exit 1
fi

tokens=$(grep -oE '^[[:space:]]*X\(ERR_[A-Z0-9_]+, "[a-z0-9_.]+", ERR_CLASS_(USAGE|INPUT|SYSTEM|INTERNAL)\)' \
	"$src/common/err_codes.h" | sed -E 's/.*"([^"]+)".*/\1/')
[ "$(wc -l <<<"$tokens")" -ge 20 ] || { echo "FAIL: could not read the list"; exit 1; }
dups=$(sort <<<"$tokens" | uniq -d)
[ -z "$dups" ] || { echo "FAIL: listed twice: $dups"; exit 1; }
echo "ok: $(wc -l <<<"$tokens") error codes, all from the list"
