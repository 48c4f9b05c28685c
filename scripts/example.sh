#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds nunatak and its bundled example, then profiles the example with
# `nunatak run` (real perf where the machine allows it) and prints the
# summary. The Run directory lands in ./.nunatak/.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh test
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "== nunatak run -- build/examples/c/example_heat (instrumented with scope_profiler)"
build/nunatak run -- build/examples/c/example_heat
