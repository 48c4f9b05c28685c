/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `<program> --version`, the probe every tool answers (mpirun, the
 * symbolizers, readelf, whatever `doctor` checks); programs with an adapter
 * of their own (perf, cc, objdump) spell theirs there. Never spawns.
 */
#ifndef NUNATAK_TOOLS_VERSION_H
#define NUNATAK_TOOLS_VERSION_H

/* Fills argv with {prog, "--version", NULL} (borrowed). */
void tool_argv_version(const char *argv[3], const char *prog);

#endif
