/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unresolved code, by module (issue 24): one row per module rather than one
 * finding per unnamed address (`mca_btl_vader.so+0x4f94`, ...), the MPI and
 * OpenMP runtimes recognised by their module names as runtime time, and the
 * remedy that names them (their debug symbols).
 */
#ifndef NUNATAK_REPORT_UNRESOLVED_VIEW_H
#define NUNATAK_REPORT_UNRESOLVED_VIEW_H

#include <stdbool.h>
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

/* What names unresolved code: the runtime's debug symbols when a runtime
 * holds some of it (runtime true), else the modules' own. */
const char *unresolved_remedy(bool runtime);

/* The payload's unresolved.modules: every module holding unresolved time,
 * largest first, {module, path, addresses, share (a Value), runtime (or
 * null), remedy}. An empty array when none (or without a time base). */
typedef struct json_t json_t;
json_t *unresolved_modules_json(const struct pivot *p, const char *time_base, double total);

#endif
