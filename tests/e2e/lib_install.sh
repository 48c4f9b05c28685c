#!/usr/bin/env bash
# libscope_profiler install: pkg-config, find_package(ScopeProfiler) and the Fortran module work from an installed prefix
set -eu
B=${NUNATAK_BUILD_DIR:?}
S=${NUNATAK_SOURCE_DIR:?}
cc=$(command -v cc || command -v gcc || true)
[ -n "$cc" ] || { echo "skip: no C compiler"; exit 2; }
command -v pkg-config >/dev/null || { echo "skip: pkg-config not found"; exit 2; }
if [ "${NUNATAK_SANITIZE:-0}" = 1 ]; then
  echo "skip: programs built here without ASan cannot load the ASan-built library"; exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SCOPE_PROFILER_HDF5=0
P="$tmp/prefix"
cmake --install "$B" --prefix "$P" >"$tmp/install.log"
libdir=$(dirname "$(find "$P" -name libscope_profiler.so | head -1)")
for f in "$P/include/scope_profiler.h" "$libdir/libscope_profiler.a" \
         "$libdir/pkgconfig/scope_profiler.pc" "$libdir/cmake/ScopeProfiler/ScopeProfilerConfig.cmake"; do
  [ -f "$f" ] || { echo "not installed: $f"; exit 1; }
done
# The shared library needs nothing beyond libc (HDF5 is a plugin).
if readelf -d "$libdir/libscope_profiler.so" | grep NEEDED | grep -v -E "libc\.so|libpthread|libdl|ld-linux"; then
  echo "unexpected run-time dependency"; exit 1
fi

echo "== pkg-config"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046
"$cc" -DSP_ENABLE "$S/examples/c/heat.c" -o "$tmp/heat" $(pkg-config --cflags --libs scope_profiler) \
  -lm -Wl,-rpath,"$libdir"
SCOPE_PROFILER_PREFIX="$tmp/pc" "$tmp/heat" 32 20 0 >/dev/null
[ -s "$tmp/pc_rank00000.spt" ]

echo "== find_package(ScopeProfiler)"
mkdir -p "$tmp/proj"
cat >"$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(use_sp C)
find_package(ScopeProfiler 1.0 REQUIRED)
add_executable(heat "$S/examples/c/heat.c")
target_compile_definitions(heat PRIVATE SP_ENABLE)
target_link_libraries(heat PRIVATE ScopeProfiler::scope_profiler m)
add_executable(heat_static "$S/examples/c/heat.c")
target_link_libraries(heat_static PRIVATE ScopeProfiler::scope_profiler_static m)
CM
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$P" >"$tmp/cm.log"
cmake --build "$tmp/proj/build" >>"$tmp/cm.log"
SCOPE_PROFILER_PREFIX="$tmp/cm" "$tmp/proj/build/heat" 32 20 0 >/dev/null
SCOPE_PROFILER_PREFIX="$tmp/cms" "$tmp/proj/build/heat_static" 32 20 0 >/dev/null
[ -s "$tmp/cm_rank00000.spt" ] && [ -s "$tmp/cms_rank00000.spt" ]

echo "== Fortran module from the prefix"
if command -v gfortran >/dev/null && [ -f "$P/include/scope_profiler.mod" ]; then
  gfortran -cpp "$S/examples/fortran/heat1d.f90" -I"$P/include" -L"$libdir" -lscope_profiler \
    -Wl,-rpath,"$libdir" -o "$tmp/heat1d"
  SCOPE_PROFILER_PREFIX="$tmp/f" "$tmp/heat1d" >/dev/null
  [ -s "$tmp/f_rank00000.spt" ]
else
  echo "(gfortran or the installed .mod missing: Fortran part not checked)"
fi
echo "install checks passed"
