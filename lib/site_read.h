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

/* The same into @p out (room for @p max bytes): false if unreadable or not
 * ended within @p max. Allocates nothing (async-signal-safe). */
bool sp_mem__read_string_to(const char *p, char *out, size_t max);

/* Reads descriptor @p site without trusting it: true and *copy, *name
 * (and *file when it has one; caller frees both) if it is a readable
 * sp_site, false otherwise. */
bool sp_site__read(const struct sp_site *site, struct sp_site *copy, char **name,
		   char **file);

/* The same into @p name and @p file (room for @p max bytes each; "" for
 * none or unreadable). Allocates nothing: the stream's flush, which a
 * signal handler's sp_end may run, reads handles through it. */
bool sp_site__read_to(const struct sp_site *site, struct sp_site *copy, char *name,
		      char *file, size_t max);

#endif
