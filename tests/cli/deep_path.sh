#!/bin/bash
# a source tree at a path of 150+ characters configures (Release) and builds the library, the Fortran module and the Fortran example (whose __FILE__ expands past free form's 132 columns), the example runs; the examples tests read keep their line tables (-g) in a Release build
set -eu
command -v cmake >/dev/null || { echo "skip: cmake not installed"; exit 2; }
command -v gfortran >/dev/null || { echo "skip: gfortran not installed (the Fortran half is what breaks)"; exit 2; }
fail() { echo "FAIL: $*" >&2; [ -f "$log" ] && tail -30 "$log" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/log"
deep="$tmp/a-rather-long-directory-name-as-on-a-cluster-scratch/project-allocation-0123456789/user-name/checkouts-of-many-versions-of-it/nunatak"
[ ${#deep} -ge 150 ] || fail "path only ${#deep} characters"
mkdir -p "$deep"
# The tree without build directories or git metadata, as a fresh clone has it.
tar -C "$NUNATAK_SOURCE_DIR" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$deep" -xf -
# No sanitizer here: gfortran and the examples are built as a user would.
env -u CC -u CFLAGS cmake -S "$deep" -B "$deep/build" -DNUNATAK_WERROR=ON \
	-DCMAKE_BUILD_TYPE=Release > "$log" 2>&1 ||
	fail "configure in $deep"
grep -q "valid for C" "$log" && fail "C-only flags reached gfortran"
cmake --build "$deep/build" -j2 --target scope_profiler example_heat1d example_heat >> "$log" 2>&1 ||
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
echo "ok: built and ran from a ${#deep}-character path"
