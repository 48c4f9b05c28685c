# Sourced by regions_viewers.sh and regions_viewers_browser.sh: installs the
# pinned speedscope release once per build directory (never into the source
# tree), then writes the exports both check into $tmp/www.
tmp=$(mktemp -d)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
cd "$tmp"
mk="$NUNATAK_SOURCE_DIR/tests/cli/regions_mktrace.py"
fail() { echo "FAIL: $*"; exit 1; }
command -v npm >/dev/null || { echo "skip: npm is not installed (apt-get install npm)"; exit 2; }
# speedscope from npm, pinned by tests/cli/regions_viewers/package-lock.json,
# installed once per build directory (never into the source tree).
dest="$NUNATAK_BUILD_DIR/regions-viewers"
mkdir -p "$dest"
release="$dest/node_modules/speedscope/dist/release"
# Both viewer tests may run at once (ctest -j): one installs, the other waits;
# the package files are copied under the lock too (copied over while the
# other's npm ci reads them, that install could read them half-written).
rc=0
(
	flock 9
	cp "$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package.json" \
		"$NUNATAK_SOURCE_DIR/tests/cli/regions_viewers/package-lock.json" "$dest/"
	[ -f "$release/file-format-schema.json" ] ||
		(cd "$dest" && { npm ci --offline --no-audit --no-fund >npm.log 2>&1 ||
			timeout 180 npm ci --prefer-offline --no-audit --no-fund >>npm.log 2>&1; })
) 9>"$dest/install.lock" || rc=$?
[ "$rc" = 0 ] || { echo "skip: could not install speedscope from npm (offline?): $(tail -1 "$dest/npm.log")"; exit 2; }
[ -f "$release/file-format-schema.json" ] || fail "speedscope package without file-format-schema.json"

mkdir run www
python3 "$mk" small run 2
python3 "$mk" threads th_rank00000.spt
"$NUNATAK" regions export run -f speedscope -o www/run.speedscope.json
"$NUNATAK" regions export th_rank00000.spt -f speedscope -o www/threads.speedscope.json
"$NUNATAK" regions export run -f chrome -o www/run.trace.json
"$NUNATAK" regions export run -f collapsed -o www/run.collapsedstack.txt
