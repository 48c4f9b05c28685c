#!/bin/bash
# A terminal's Ctrl-C (a real pseudo-terminal) in `nunatak run -- mpirun.mpich -n 2`: each rank gets the one SIGINT MPICH's launcher sends bare (none of nunatak's own), nunatak exits as the bare run does (the ranks' 0), and both ranks' rank.json are kept
set -eu
command -v mpirun.mpich >/dev/null || { echo "skip: mpirun.mpich is not installed"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/interrupts_tty_lib.sh"
case_run mpich-int ready-sigterm 0 1 mpirun.mpich -n 2
echo "ok: a terminal's ^C under MPICH's mpirun: one SIGINT per rank as bare, the exit status of the bare run, every rank's data kept"
