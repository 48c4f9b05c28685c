#!/bin/bash
# the recorded corpus is byte for byte as recorded (tests/corpus/SHA256SUMS: no file changed, added or removed), and nothing of the project refers to a ../shared beside the clone
set -eu
root="$NUNATAK_SOURCE_DIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -d "$NUNATAK_CORPUS_DIR/recordings" ] || fail "no corpus at $NUNATAK_CORPUS_DIR/recordings"
cd "$NUNATAK_CORPUS_DIR"
[ -s SHA256SUMS ] || fail "$NUNATAK_CORPUS_DIR/SHA256SUMS missing"
sha256sum --check --strict --quiet SHA256SUMS || fail "a recorded file differs from SHA256SUMS"
listed=$(awk '{ print $2 }' SHA256SUMS | LC_ALL=C sort)
present=$(find LICENSE recordings -type f | LC_ALL=C sort)
[ "$listed" = "$present" ] || fail "files added to or removed from the corpus:
$(diff <(echo "$listed") <(echo "$present") || true)"
[ "$(wc -l < SHA256SUMS)" -gt 300 ] || fail "SHA256SUMS lists too few files"

# A clone stands alone: no path to a sibling ../shared (or the lead's
# /work/shared) in the build, the sources, the tests, the scripts or the docs.
cd "$root"
hits=$(grep -rnI -e '\.\./shared' -e '/work/shared' -e 'shared/corpus' -e 'shared/docs' \
	--exclude-dir=.git --exclude-dir=recordings --exclude-dir='build*' \
	--exclude=corpus_intact.sh . || true)
[ -z "$hits" ] || fail "references outside the clone:
$hits"
echo ok
