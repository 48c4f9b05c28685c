/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SP_SITE_READ_H
#define SP_SITE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "scope_profiler.h"

/* Copies a NUL-terminated string from memory that may be unmapped, without
 * faulting (process_vm_readv). Caller frees. NULL if unreadable or longer
 * than @p max. */
char *sp_mem__read_string(const char *p, size_t max);

/* Reads descriptor @p site without trusting it: true and *copy, *name
 * (and *file when it has one; caller frees both) if it is a readable
 * sp_site, false otherwise. */
bool sp_site__read(const struct sp_site *site, struct sp_site *copy, char **name,
		   char **file);

#endif
