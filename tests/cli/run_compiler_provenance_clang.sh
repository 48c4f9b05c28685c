#!/bin/bash
# provenance.dependencies of a clang build (issue 22 item 9): .comment names clang, and DW_AT_producer, a DWARF 5 string index (strx) into .debug_str_offsets, is read too
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/compiler_provenance_lib.sh"
clang -g -O2 -o app-clang app.c
check app-clang "clang version" "clang version"
echo ok
