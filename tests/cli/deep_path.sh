#!/bin/bash
# a clone at a 200+-character path, under a private (0700) parent and a parent whose name has spaces, configures (Release) and builds nunatak, its HDF5 module, the library, the Fortran module and example (whose __FILE__ expands past free form's 132 columns); the example runs, the examples keep their line tables (-g) in a Release build, and the path-sensitive tests pass there (whole error messages naming the module's path, paths with spaces in --help and in commands, a run as another user who cannot enter the private parent)
set -eu
command -v cmake >/dev/null || { echo "skip: cmake not installed"; exit 2; }
command -v gfortran >/dev/null || { echo "skip: gfortran not installed (the Fortran half is what breaks)"; exit 2; }
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
	echo "skip: the clone is built with gcc, without sanitizers, whichever pass runs it: the gcc pass does"; exit 2
fi
# As root, the tests run a second time as an ordinary user (`nobody`).
as_user=0
if [ "$(id -u)" = 0 ]; then
	command -v runuser >/dev/null && id nobody >/dev/null 2>&1 ||
		{ echo "skip: root without runuser or a nobody user for the ordinary-user half"; exit 2; }
	as_user=1
fi
fail() { echo "FAIL: $*" >&2; [ -f "$log" ] && tail -30 "$log" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/log"
# A home directory on a shared machine is private (0700); a scratch folder
# named by a person has spaces.
home="$tmp/home of a user"
mkdir -m 700 "$home"
deep="$home/a-rather-long-directory-name-as-on-a-cluster-scratch/project allocation 0123456789/user-name/checkouts-of-many-versions-of-it/nunatak"
# Padded to 200 characters or more, whatever TMPDIR is.
pad=checkouts
while [ $((${#deep} + ${#pad})) -lt 201 ]; do pad="$pad-x"; done
deep="$deep/$pad"
[ ${#deep} -ge 200 ] || fail "path only ${#deep} characters"
mkdir -p "$deep"
# The tree without build directories or git metadata, as a fresh clone has it.
tar -C "$NUNATAK_SOURCE_DIR" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$deep" -xf -
# No sanitizer here: gfortran and the examples are built as a user would.
env -u CC -u CFLAGS cmake -S "$deep" -B "$deep/build" -DNUNATAK_WERROR=ON \
	-DCMAKE_BUILD_TYPE=Release > "$log" 2>&1 ||
	fail "configure in $deep"
grep -q "valid for C" "$log" && fail "C-only flags reached gfortran"
targets=(scope_profiler example_heat1d example_heat nunatak)
cmake --build "$deep/build" --target help | grep -q nunatak_hdf5 && targets+=(nunatak_hdf5)
cmake --build "$deep/build" -j2 --target "${targets[@]}" >> "$log" 2>&1 ||
	fail "build in $deep"
grep -q "valid for C" "$log" && fail "C-only warning flags passed to gfortran"
[ -f "$deep/build/lib/fortran/scope_profiler.mod" ] || fail "no Fortran module"
ex="$deep/build/examples/fortran/example_heat1d"
[ -x "$ex" ] || fail "no Fortran example"
(cd "$tmp" && SCOPE_PROFILER_PREFIX="$tmp/f" "$ex" > "$tmp/out") || fail "the example failed"
grep -q "heat1d: u(1)" "$tmp/out" || fail "the example printed nothing"
[ -s "$tmp/f_rank00000.spt" ] || fail "no trace"
for b in "$ex" "$deep/build/examples/c/example_heat"; do
	readelf -S "$b" | grep -q '\.debug_line' || fail "$b has no line table in a Release build"
done
# The tests whose outcome depends on where the clone is: messages naming the
# build's paths, a run as another user (root: `nobody`), the install layout.
sensitive='^(cli_regions_h5_module|cli_regions_h5_module_other|cli_doctor_basic|cli_docs_links|cli_regions_export|e2e_mpi_measured_user)$'
(cd "$deep/build" && ctest -R "$sensitive" --output-on-failure </dev/null) >"$tmp/ctest" 2>&1 ||
	{ cat "$tmp/ctest" >&2; fail "path-sensitive tests in $deep"; }
grep -E "^[[:space:]]*[0-9]+/[0-9]+ Test" "$tmp/ctest"
ran=$(grep -cE "Test +#[0-9]+: .* (Passed|\*\*\*Skipped)" "$tmp/ctest" || true)
[ "$ran" = 6 ] || { cat "$tmp/ctest" >&2; fail "expected 6 path-sensitive tests, $ran ran"; }
# As root, the same again as an ordinary user who owns the private home
# (`nobody`): what needs root skips with its reason, nothing fails.
as=""
if [ "$as_user" = 1 ]; then
	chown -R nobody "$home"
	chmod 711 "$tmp" # (mktemp made it 0700: the home inside is the private one)
	(cd "$deep/build" && runuser -u nobody -- env HOME="$home" ctest -R "$sensitive" --output-on-failure \
		</dev/null) >"$tmp/ctest-user" 2>&1 || { cat "$tmp/ctest-user" >&2; fail "path-sensitive tests as nobody"; }
	grep -E "^[[:space:]]*[0-9]+/[0-9]+ Test" "$tmp/ctest-user"
	ran=$(grep -cE "Test +#[0-9]+: .* (Passed|\*\*\*Skipped)" "$tmp/ctest-user" || true)
	[ "$ran" = 6 ] || { cat "$tmp/ctest-user" >&2; fail "as nobody: expected 6 path-sensitive tests, $ran ran"; }
	as=", and again as nobody"
fi
echo "ok: built, ran and passed the path-sensitive tests from a ${#deep}-character path under a 0700 parent$as"
