#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs a command with an Open MPI session directory base of its own
# (OMPI_MCA_orte_tmpdir_base), removed after it. Open MPI 4.1 keeps one
# session directory per user, <tmpdir>/ompi.<host>.<uid>, that every mpirun
# and singleton makes if absent and removes as it ends when nothing else is
# in it: an mpirun of another test starting in that moment fails orte_init
# ("mkdir ... File exists"). Two loops of `mpirun -n 1 true` at once on one
# fresh directory: 7 failures in 1525 runs; with one directory each: none in
# 1365. Locally a stale session left in /tmp keeps the directory and hides
# the race; a fresh CI machine has none. Sticky and open to all as /tmp is:
# some tests run mpirun as nobody. A test that needs more may still set its
# own (tests/e2e/mpi_pairings.sh). Usage: ompi_tmpdir.sh COMMAND [ARG...]
dir=$(mktemp -d) || exit 1
chmod 1777 "$dir"
OMPI_MCA_orte_tmpdir_base=$dir "$@"
rc=$?
rm -rf "$dir"
exit "$rc"
