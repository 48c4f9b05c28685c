/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C compiler adapter, for the calibration kernel: builds argv, never
 * spawns (the caller runs them through the executor). Candidates in order:
 * the configured [tools] cc, then cc, gcc, clang (REFERENCE.md §5). The build
 * is `-O3 -march=native -pthread SRC -o OUT`, retried with -mcpu=native
 * (compilers for Arm and POWER spell it so). `--version` answers seen:
 * "cc (Debian 12.2.0-14+deb12u1) 12.2.0", "cc (Ubuntu 14.2.0-19ubuntu2)
 * 14.2.0" (corpus), "clang version 14.0.6": only the first line is kept.
 */
#ifndef NUNATAK_TOOLS_CC_H
#define NUNATAK_TOOLS_CC_H

#include <stddef.h>

/* The compilers to try, NULL-terminated, configured first (duplicates
 * dropped). Returns the number written into out (at most 4). */
size_t cc_candidates(const char *configured, const char *out[5]);

/* NULL-terminated argv (caller frees with cc_argv__free), NULL on ENOMEM. */
char **cc_argv_version(const char *cc);
/* arch: "-march=native" or "-mcpu=native". */
char **cc_argv_build(const char *cc, const char *arch, const char *src, const char *out);
void cc_argv__free(char **argv);

/* The first line of a --version answer (caller frees), NULL when empty. */
char *cc_version_line(const char *out);

#endif
