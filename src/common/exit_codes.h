/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nunatak's own exit codes (values from docs/REFERENCE.md §1). Otherwise
 * `run` exits with the application's own code. An application that itself
 * exits 125 is indistinguishable from a failure before launch; --json tells.
 */
#ifndef NUNATAK_COMMON_EXIT_CODES_H
#define NUNATAK_COMMON_EXIT_CODES_H

#include <stdbool.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_ERROR = 1,                   /* `regions` failed on its input or output */
	EXIT_STRICT_VIOLATION = 121,      /* --strict and at least one degradation */
	EXIT_FAILURE_BEFORE_LAUNCH = 125, /* also: usage errors, unreadable Run */
	EXIT_COMMAND_NOT_EXECUTABLE = 126,
	EXIT_COMMAND_NOT_FOUND = 127,
};

#define EXIT_USAGE EXIT_FAILURE_BEFORE_LAUNCH

#endif
