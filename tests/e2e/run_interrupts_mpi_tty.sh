#!/bin/bash
# A terminal's Ctrl-C (a real pseudo-terminal) in `nunatak run -- mpirun.openmpi -n 2`: the ranks get what mpirun sends them bare (SIGTERM, then SIGKILL), nunatak exits as the bare run does (1), and both ranks' rank.json are kept (the shims' writers outlive mpirun's kill)
set -eu
command -v mpirun.openmpi >/dev/null || { echo "skip: mpirun.openmpi is not installed"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/interrupts_tty_lib.sh"
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
# Open MPI's mpirun answers ^C with SIGCONT, SIGTERM a second later and
# SIGKILL about a millisecond after to each rank's process group: a rank
# whose SIGTERM handler exits may or may not finish first (bare too), one
# deaf to SIGTERM dies by SIGKILL; mpirun exits 1 either way. The shims'
# writers, out of those groups, finish after mpirun ended.
case_run openmpi-term ready-sigterm "0 9" 0 mpirun.openmpi "${flags[@]}" -n 2
case_run openmpi-deaf ready-deaf 9 1 mpirun.openmpi "${flags[@]}" -n 2
echo "ok: a terminal's ^C under Open MPI's mpirun: the ranks' signals and the exit status of the bare run, every rank's data kept"
