/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ldd adapter: `ldd TARGET`, the shared libraries a binary loads (the
 * call-stack ladder checks each for frame pointers). Pure: never spawns.
 */
#ifndef NUNATAK_TOOLS_LDD_H
#define NUNATAK_TOOLS_LDD_H

#include <stddef.h>

#define LDD_ARGC 2

/* argv[0..2]: ldd target, NULL (target borrowed). */
void ldd__argv(const char *argv[LDD_ARGC + 1], const char *target);

/* Library paths of `ldd` output (the "name => /path (0x...)" lines); caller
 * frees each and the array. *n receives the count. NULL when none. */
char **ldd__parse(const char *text, size_t *n);

#endif
