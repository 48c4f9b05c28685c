#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs one tests/{cli,e2e,replay,golden} script for ctest. Exit 2 is ctest's
# skip (SKIP_RETURN_CODE), but sed, grep, diff and cmp also exit 2 on an
# error, and under `set -e` that error would read as a skip. A skip is
# therefore an exit 2 whose output says "skip: <missing capability>";
# any other exit 2 is turned into a failure, with that said.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Each test its own Open MPI session directory (tests/ompi_tmpdir.sh: two
# tests' mpiruns sharing the default one race).
bash "$(dirname "$0")/ompi_tmpdir.sh" bash "$1" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" = 2 ] && ! grep -qiE "^skip" "$out"; then
	echo "FAIL: exit 2 without a 'skip: <reason>' line: a command failed with status 2 (sed, grep, diff ... on an error); that is not a skip" >&2
	exit 1
fi
exit "$rc"
