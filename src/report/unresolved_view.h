/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unresolved code, by module (issue 24): one row per module rather than one
 * finding per unnamed address (`mca_btl_vader.so+0x4f94`, ...), the MPI and
 * OpenMP runtimes recognised by their module names as runtime time, and the
 * remedy that names them (their debug symbols).
 */
#ifndef NUNATAK_REPORT_UNRESOLVED_VIEW_H
#define NUNATAK_REPORT_UNRESOLVED_VIEW_H

#include <stddef.h>

struct pivot;

/* "the MPI runtime", "the OpenMP runtime", or NULL, from a module's path. */
const char *runtime_of_module(const char *module);

struct unresolved_module {
	const char *module;  /* borrowed path */
	double share;        /* of the time base's total */
	size_t nr_addresses; /* unresolved Hotspots with time */
	const char *runtime; /* runtime_of_module() */
};

/* The modules holding unresolved time, largest first, into v (capacity
 * cap); total is the time base's sum over every Hotspot. Returns how many. */
size_t unresolved_by_module(const struct pivot *p, const char *time_base, double total,
			    struct unresolved_module *v, size_t cap);

#endif
