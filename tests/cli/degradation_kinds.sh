#!/usr/bin/env bash
# Degradation names come from the one list (src/common/degradation_kinds.h): no listed name written as a string elsewhere in src/, no name listed twice
set -eu
src=${NUNATAK_SOURCE_DIR:?}/src
list=$src/common/degradation_kinds.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=$(grep -oE '^[[:space:]]*X\(DEG_[A-Z0-9_]+, "[a-z0-9-]+", (true|false),' "$list" |
	sed -E 's/.*"([^"]+)".*/\1/')
[ "$(wc -l <<<"$names")" -ge 40 ] || { echo "FAIL: could not read the list"; exit 1; }
dups=$(sort <<<"$names" | uniq -d)
[ -z "$dups" ] || { echo "FAIL: listed twice: $dups"; exit 1; }

# "name" as a C string, comments skipped; prints file: name.
literal_names() {
	perl -0777 -e '
		my %n = map { $_ => 1 } split /\n/, shift @ARGV;
		for my $f (@ARGV) {
			open my $h, "<", $f or next; local $/; my $t = <$h>;
			$t =~ s{/\*.*?\*/}{}gs; $t =~ s{//[^\n]*}{}g;
			while ($t =~ /"([a-z0-9-]+)"/g) { print "$f: $1\n" if $n{$1} }
		}' "$names" "$@"
}

# The check must catch a listed name written as a string.
printf 'int f(void) { return degrade(s,\n  "llvm-missing", "x", NULL); }\n' >"$tmp/bad.c"
[ -n "$(literal_names "$tmp/bad.c")" ] || { echo "FAIL: the check missed a literal name"; exit 1; }
printf 'int f(void) { return degrade(s, DEG_LLVM_MISSING, "x", NULL); }\n' >"$tmp/good.c"
[ -z "$(literal_names "$tmp/good.c")" ] || { echo "FAIL: the check flagged the macro"; exit 1; }

mapfile -d '' files < <(find "$src" \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) ! -path "$list" -print0)
bad=$(literal_names "${files[@]}")
if [ -n "$bad" ]; then
	echo "$bad"
	echo "FAIL: degradation names written as strings; use the DEG_ macros of src/common/degradation_kinds.h"
	exit 1
fi
echo "ok: $(wc -l <<<"$names") degradation kinds, all from the list"
