#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The include layers of src/ (docs/architecture.md): an #include "<area>/..."
# may only point to the same layer or a lower one, no two folders may include
# each other (no cycle between folders at all), every folder of src/ must have
# a layer, src/ shares with lib/ only the headers named in LIB_SHARED, and
# analysis/ includes no JSON library.
# Usage: scripts/check_layers.sh [SRC_DIR [LIB_DIR]]; prints each violation
# as "file:line: what" and exits 1 when there is one, 0 otherwise.
set -eu
src=${1:-"$(dirname "$0")/../src"}
lib=${2:-"$(dirname "$0")/../lib"}

# Top (0) to bottom. One line per layer; folders of one layer may include each
# other's headers only one way.
LAYERS='cli
run
collect report mpi hdf5
analysis regions
ingest attrib machine doctor
store launch exec tools model modules
common'
# Headers of lib/ that src/ may include (by bare name): the trace formats'
# constants, the rank-identity parser the rank shim shares with the
# library so both read MPI launchers' variables the same way, and the .h5
# layout both HDF5 writers write through.
LIB_SHARED='sp_format.h rank_env.h h5_layout.h'
# src/mpi/probe/ holds sources built on the target by the Run's mpicc, never
# part of nunatak's own build: they include only themselves and <mpi.h>.
# Generated into the build tree, not part of any area.
GENERATED='build_config.h'

rank_of() {
	local n=0 line
	while IFS= read -r line; do
		for a in $line; do [ "$a" = "$1" ] && { echo $n; return; }; done
		n=$((n + 1))
	done <<<"$LAYERS"
	echo -1
}

fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

for dir in "$src"/*/; do
	area=$(basename "$dir")
	if [ "$(rank_of "$area")" -lt 0 ]; then
		echo "src/$area/: folder has no layer (add it to LAYERS in scripts/check_layers.sh and docs/architecture.md)"
		fail=1
	fi
done

while IFS=: read -r file line text; do
	area=$(basename "$(dirname "$file")")
	inc=${text#*\"}
	inc=${inc%%\"*}
	rel="src/${file#"$src"/}"
	case $inc in
	*/*)
		to=${inc%%/*}
		[ "$to" = "$area" ] && continue
		ra=$(rank_of "$area")
		rt=$(rank_of "$to")
		if [ "$rt" -lt 0 ]; then
			echo "$rel:$line: includes $inc from unknown folder $to/"
			fail=1
		elif [ "$rt" -lt "$ra" ]; then
			echo "$rel:$line: $area/ includes $inc from a higher layer ($to/)"
			fail=1
		fi
		echo "$area $to" >>"$edges"
		;;
	*)
		ok=0
		for h in $LIB_SHARED $GENERATED; do [ "$inc" = "$h" ] && ok=1; done
		if [ $ok = 0 ]; then
			echo "$rel:$line: includes \"$inc\" without its folder (write \"<area>/$inc\")"
			fail=1
		fi
		;;
	esac
done < <(grep -rn --include='*.c' --include='*.h' --include='*.inc' --exclude-dir=probe \
	'^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src" || true)

# Cycles between folders: transitive closure of the folder graph.
cycles=$(sort -u "$edges" | awk '
	{ e[$1 " " $2] = 1; n[$1] = 1; n[$2] = 1 }
	END {
		for (k in n) for (i in n) if (e[i " " k]) for (j in n) if (e[k " " j]) e[i " " j] = 1
		for (i in n) for (j in n) if (i < j && e[i " " j] && e[j " " i])
			print "src/" i "/ and src/" j "/ include each other (directly or through other folders)"
	}')
if [ -n "$cycles" ]; then
	echo "$cycles"
	fail=1
fi

# analysis/ is numbers in, numbers out: no JSON library (report/ owns every
# JSON document and every text).
while IFS=: read -r file line _; do
	echo "src/${file#"$src"/}:$line: analysis/ includes <jansson.h> (JSON belongs in report/)"
	fail=1
done < <(grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*<jansson\.h>' \
	"$src/analysis" 2>/dev/null || true)

# lib/ stands apart: it includes nothing of src/.
if [ -d "$lib" ]; then
	while IFS=: read -r file line text; do
		inc=${text#*\"}
		inc=${inc%%\"*}
		to=${inc%%/*}
		if [ "$inc" != "$to" ] && [ "$(rank_of "$to")" -ge 0 ]; then
			echo "lib/${file#"$lib"/}:$line: the library includes $inc from src/"
			fail=1
		fi
	done < <(grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$lib" || true)
fi
exit $fail
