/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NULL-terminated argv arrays: counting and showing. Commands are argv
 * arrays, never shell strings (STYLE.md §10); argv_join() is for messages
 * only ("launching: mpirun -n 8 ./solver"), never for execution.
 */
#ifndef NUNATAK_COMMON_ARGV_H
#define NUNATAK_COMMON_ARGV_H

#include <stddef.h>

/* Entries before the NULL; 0 for a NULL array. */
size_t argv_count(const char *const *v);
/* The entries separated by one space (caller frees), or NULL when out of
 * memory. An empty or NULL array gives "". */
char *argv_join(const char *const *v);

#endif
