# SPDX-License-Identifier: BSD-3-Clause
# Sourced by bench/run/run.sh and cold_parts.sh: an absolute path for a
# binary (the benches work in their own directory; a bare name is looked up
# on PATH), and NUNATAK made absolute or refused with its name.
abs() {
	case "$1" in
	*/*) (cd "$(dirname "$1")" && printf '%s/%s\n' "$PWD" "$(basename "$1")") ;;
	*) command -v "$1" ;;
	esac
}
: "${NUNATAK:?set NUNATAK to the nunatak binary}"
nunatak=$(abs "$NUNATAK") || { echo "$(basename "$0"): NUNATAK=$NUNATAK not found" >&2; exit 1; }
NUNATAK=$nunatak
