#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages nunatak builds and tests with. As root it runs
# apt-get; otherwise it prints the exact line to run and fails.
# Usage: scripts/deps.sh [build|test]   (test adds the tools the suite drives)
# llvm-19: the LLVM that `nunatak doctor` recommends (ATTRIB_LLVM_RECOMMENDED,
# src/tools/locate.h; Debian 12's plain `llvm` is 14); tests/cli/doctor_truth.sh
# keeps the two in step.
# libomp-dev: LLVM's OpenMP runtime for the clang -fopenmp tests, and
# omp-tools.h, with which the build adds nunatak's OMPT tool (optional:
# without it libomp's regions are read from the samples' frames).
# slurm-wlm, slurmctld, slurmd, slurm-client, munge: the two-node cluster the
# Slurm tests start on this machine (tests/slurm/cluster.sh, its own daemons on
# free ports, stopped after each test; a daemon the packages start is unused).
# strace: tests/cli/kallsyms_one_read.sh counts the bytes a Run reads from
# /proc/kallsyms.
# jq: tests/cli/run_json_jq.sh pipes `nunatak run --json` into it, as scripts do.
set -eu
build_pkgs="build-essential cmake pkg-config gfortran libjansson-dev libsqlite3-dev libhdf5-dev"
test_pkgs="clang libclang-rt-14-dev linux-perf llvm llvm-19 binutils openmpi-bin libopenmpi-dev
  mpich libmpich-dev hdf5-tools sqlite3 python3 python3-numpy python3-h5py python3-jsonschema chromium valgrind
  slurm-wlm slurmctld slurmd slurm-client munge libomp-dev strace jq"
want="$build_pkgs"
[ "${1:-build}" = test ] && want="$want $test_pkgs"
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
  # MPICH is installed for its own tests (mpirun.mpich, mpicc.mpich): the
  # default mpirun/mpicc stay Open MPI's whatever the alternatives' priorities.
  for alt in mpi:/usr/bin/mpicc.openmpi mpirun:/usr/bin/mpirun.openmpi \
      mpi-x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu/openmpi/include; do
    [ -e "${alt#*:}" ] && update-alternatives --set "${alt%%:*}" "${alt#*:}" >/dev/null 2>&1 || true
  done
else
  echo "error: missing Debian packages:$missing" >&2
  echo "run:   sudo apt-get install$missing" >&2
  exit 1
fi
