#!/usr/bin/env bash
# cmake --install --prefix P: everything under P and nothing elsewhere, both executables run, the prefix moved elsewhere still serves pkg-config, find_package, the HDF5 plugin and nunatak's HDF5 module (the Fortran module: lib_install_fortran.sh); the README's C program compiles and run exactly as printed
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
P0="$tmp/first-prefix"
cmake --install "$B" --prefix "$P0" >"$tmp/install.log"
# Every file cmake installed is under the prefix, and so is what it wrote.
grep -E "^-- (Installing|Up-to-date)" "$tmp/install.log" | grep -v -- " $P0/" &&
  { echo "installed outside $P0"; exit 1; }
[ -f "$B/install_manifest.txt" ] && grep -v "^$P0/" "$B/install_manifest.txt" &&
  { echo "install manifest lists files outside $P0"; exit 1; }
for x in nunatak scope-profiler; do
  [ -x "$P0/bin/$x" ] || { echo "not installed: $P0/bin/$x"; exit 1; }
done
"$P0/bin/nunatak" --version >/dev/null
"$P0/bin/scope-profiler" --help >/dev/null
# Relocatable: the prefix moved elsewhere after install still works.
P="$tmp/moved/elsewhere"
mkdir -p "$tmp/moved"
mv "$P0" "$P"
libdir=$(dirname "$(find "$P" -name libscope_profiler.so | head -1)")
grep -q '${pcfiledir}' "$libdir/pkgconfig/scope_profiler.pc" || { echo ".pc is not relocatable"; exit 1; }
grep -rq "$P0" "$libdir/pkgconfig" "$libdir/cmake" && { echo "the first prefix is written in the package files"; exit 1; }
for f in "$P/include/scope_profiler.h" "$libdir/libscope_profiler.a" \
         "$libdir/pkgconfig/scope_profiler.pc" "$libdir/cmake/ScopeProfiler/ScopeProfilerConfig.cmake"; do
  [ -f "$f" ] || { echo "not installed: $f"; exit 1; }
done
# The shared library needs nothing beyond libc (HDF5 is a plugin).
if readelf -d "$libdir/libscope_profiler.so" | grep NEEDED | grep -v -E "libc\.so|libpthread|libdl|ld-linux"; then
  echo "unexpected run-time dependency"; exit 1
fi

echo "== the documentation installed, and --help points into the (moved) prefix"
for f in README.md docs/cli/run.md docs/cli/report.md docs/run-format.md; do
  [ -f "$P/share/doc/nunatak/$f" ] || { echo "not installed: $P/share/doc/nunatak/$f"; exit 1; }
done
"$P/bin/nunatak" --help | grep -qx "documentation: $P/share/doc/nunatak/README.md" ||
  { echo "nunatak --help does not point to the installed README:"; "$P/bin/nunatak" --help | tail -3; exit 1; }
for verb in run report compare calibrate doctor regions; do
  line=$("$P/bin/nunatak" "$verb" --help | grep "^documentation: ")
  [ "$line" = "documentation: $P/share/doc/nunatak/docs/cli/$verb.md" ] && [ -f "${line#documentation: }" ] ||
    { echo "nunatak $verb --help: '$line'"; exit 1; }
done

echo "== pkg-config"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046
"$cc" -DSP_ENABLE "$S/examples/c/heat.c" -o "$tmp/heat" $(pkg-config --cflags --libs scope_profiler) \
  -lm -Wl,-rpath,"$libdir"
SCOPE_PROFILER_PREFIX="$tmp/pc" "$tmp/heat" 32 20 0 >/dev/null
[ -s "$tmp/pc_rank00000.spt" ]

if [ -f "$libdir/libscope_profiler_h5.so" ]; then
  echo "== HDF5 plugin beside the moved library"
  SP_LOG_LEVEL=4 SCOPE_PROFILER_HDF5=1 SCOPE_PROFILER_PREFIX="$tmp/h5" "$tmp/heat" 32 20 0 \
    >/dev/null 2>"$tmp/h5.log"
  grep -q "HDF5 plugin: $libdir/libscope_profiler_h5.so" "$tmp/h5.log" ||
    { echo "the plugin was not found beside the library:"; cat "$tmp/h5.log"; exit 1; }
  [ -s "$tmp/h5_rank00000.h5" ] || { echo "no .h5 written"; exit 1; }
  echo "== the moved nunatak reads it through its HDF5 module (lib/nunatak/)"
  [ -f "$P/lib/nunatak/nunatak-hdf5.so" ] || { echo "not installed: $P/lib/nunatak/nunatak-hdf5.so"; exit 1; }
  "$P/bin/nunatak" regions inspect "$tmp/h5_rank00000.h5" --json >"$tmp/h5.json" 2>"$tmp/h5.err" ||
    { echo "installed nunatak cannot read .h5:"; cat "$tmp/h5.err"; exit 1; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["calls"] > 0 and d["regions"], d' \
    "$tmp/h5.json" || { echo "no call in the .h5 inspect"; exit 1; }
fi

echo "== README's C program, compiled as printed (its Fortran one: lib_install_fortran.sh)"
export LD_LIBRARY_PATH="$libdir"   # the README's way for a program without rpath
awk '/^```c$/{f=1;next} /^```$/{f=0} f' "$S/README.md" >"$tmp/app.c"
[ -s "$tmp/app.c" ] || { echo "README lost its C program"; exit 1; }
cmd=$(grep -E '^cc app\.c ' "$S/README.md" | sed 's/ *#.*//')
[ -n "$cmd" ] || { echo "README lost its cc command"; exit 1; }
(cd "$tmp" && eval "$cmd" && SCOPE_PROFILER_PREFIX="$tmp/readme" ./app | grep -q "^sum = ")
[ -s "$tmp/readme_rank00000.spt" ] || { echo "README's C program wrote no trace"; exit 1; }
unset LD_LIBRARY_PATH

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

echo "install checks passed"
