/* SPDX-License-Identifier: BSD-3-Clause */
/* Signal names as a user reads them ("SIGSEGV"), for the Run's record of
 * how the application ended and the terminal's line about it. */
#ifndef NUNATAK_COMMON_SIGNAME_H
#define NUNATAK_COMMON_SIGNAME_H

#include <stddef.h>

/* "SIGSEGV" for 11, ...; "SIG<N>" (written into buf) for a number without a
 * name here. Returns buf or a static string. */
const char *sig_name(int sig, char *buf, size_t cap);

/* The number of a name sig_name() gives ("SIGSEGV" -> 11), or 0. */
int sig_number(const char *name);

#endif
