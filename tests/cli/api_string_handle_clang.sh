#!/bin/bash
# sp_begin("work") / sp_end("work") (a string where a handle is expected) is a compile error under clang too, in C11 and later; the handle form compiles cleanly (the checks of api_string_handle.sh, run with clang)
set -eu
SP_TEST_CC=clang exec bash "$NUNATAK_SOURCE_DIR/tests/cli/api_string_handle.sh"
