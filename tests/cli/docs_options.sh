#!/usr/bin/env bash
# docs/cli/<verb>.md mention every option the verb's table declares (as --help prints it), and their synopses name no option the table lacks
set -eu
: "${NUNATAK:?}" "${NUNATAK_SOURCE_DIR:?}"
docs=$NUNATAK_SOURCE_DIR/docs/cli
fail=0

# Long options of a --help text (generated from the option table).
help_opts() { grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u; }
# Options named in the first code block (the synopsis) of a page.
synopsis_opts() { awk '/^```/{n++; next} n==1' "$1" | grep -oE -- '--[a-z0-9-]+' | sort -u; }

check() { # verb-label doc-file help-text
	local label=$1 doc=$2 help=$3 o
	local opts
	opts=$(help_opts <<<"$help")
	[ -n "$opts" ] || { echo "FAIL: $label --help lists no option"; fail=1; return; }
	for o in $opts; do
		[ "$o" = --help ] && continue
		grep -qE -- "$o([^a-z0-9-]|$)" "$doc" || { echo "FAIL: $label: $o is not documented in ${doc#"$NUNATAK_SOURCE_DIR"/}"; fail=1; }
	done
}

for verb in run doctor report; do
	check "$verb" "$docs/$verb.md" "$("$NUNATAK" "$verb" --help)"
	for o in $(synopsis_opts "$docs/$verb.md"); do
		"$NUNATAK" "$verb" --help | help_opts | grep -qx -- "$o" ||
			{ echo "FAIL: docs/cli/$verb.md synopsis names $o, which \`nunatak $verb\` does not have"; fail=1; }
	done
done
for sub in inspect tree export convert lines plot; do
	check "regions $sub" "$docs/regions.md" "$("$NUNATAK" regions "$sub" --help)"
done

# The check must notice an undocumented option.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "# nothing" >"$tmp"
saved=$fail
check "self-test" "$tmp" "$("$NUNATAK" run --help)" >/dev/null
[ $fail = 1 ] || { echo "FAIL: the check accepted a page documenting nothing"; exit 1; }
fail=$saved
[ $fail = 0 ] && echo "ok: docs/cli pages match the option tables"
exit $fail
