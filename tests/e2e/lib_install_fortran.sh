#!/usr/bin/env bash
# cmake --install --prefix P, then P moved elsewhere: the installed Fortran module builds heat1d against the moved prefix, and the README's Fortran program compiles and runs exactly as printed
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
command -v gfortran >/dev/null || { echo "skip: gfortran not found (scripts/deps.sh installs it)"; exit 2; }
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
  echo "skip: programs built here without ASan cannot load the ASan-built library"; exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
cmake --install "$B" --prefix "$tmp/first-prefix" >"$tmp/install.log"
P="$tmp/moved/elsewhere"
mkdir -p "$tmp/moved"
mv "$tmp/first-prefix" "$P"
libdir=$(dirname "$(find "$P" -name libscope_profiler.so | head -1)")
[ -f "$P/include/scope_profiler.mod" ] ||
  { echo "FAIL: gfortran is installed but the prefix has no include/scope_profiler.mod"; exit 1; }

echo "== Fortran module from the moved prefix"
gfortran -cpp -ffree-line-length-none "$S/examples/fortran/heat1d.f90" -I"$P/include" -L"$libdir" -lscope_profiler \
  -Wl,-rpath,"$libdir" -o "$tmp/heat1d"
SCOPE_PROFILER_PREFIX="$tmp/f" "$tmp/heat1d" | grep -q "heat1d: u(1)"
[ -s "$tmp/f_rank00000.spt" ] || { echo "FAIL: heat1d wrote no trace"; exit 1; }

echo "== README's Fortran program, compiled as printed"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir"   # the README's way for a program without rpath
awk '/^```fortran$/{f=1;next} /^```$/{f=0} f' "$S/README.md" >"$tmp/app.f90"
[ -s "$tmp/app.f90" ] || { echo "FAIL: README lost its Fortran program"; exit 1; }
fcmd=$(grep -E '^gfortran app\.f90 ' "$S/README.md" | sed 's/ *#.*//')
[ -n "$fcmd" ] || { echo "FAIL: README lost its gfortran command"; exit 1; }
(cd "$tmp" && eval "$fcmd" && SCOPE_PROFILER_PREFIX="$tmp/readme_f" ./app_f | grep -q "^sum = ")
[ -s "$tmp/readme_f_rank00000.spt" ] || { echo "FAIL: README's Fortran program wrote no trace"; exit 1; }
echo "Fortran install checks passed"
