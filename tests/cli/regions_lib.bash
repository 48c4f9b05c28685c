# SPDX-License-Identifier: BSD-3-Clause
# Shared preamble of the regions_* tests (sourced, not a test itself): a temp
# directory, removed on exit, as the working directory; `mk`, the test-trace
# writer; `fail`.
export PYTHONDONTWRITEBYTECODE=1 # the tests import regions_mktrace.py from the source tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mk="$NUNATAK_SOURCE_DIR/tests/cli/regions_mktrace.py"
fail() { echo "FAIL: $*"; exit 1; }
