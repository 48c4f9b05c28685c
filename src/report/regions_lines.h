/* SPDX-License-Identifier: BSD-3-Clause */
/* `regions lines`: the per-region line profile regions/lines.h computes,
 * printed as a table (with the source line under --source) or as the
 * nunatak.regions.lines JSON document. */
#ifndef NUNATAK_REPORT_REGIONS_LINES_H
#define NUNATAK_REPORT_REGIONS_LINES_H

#include <stddef.h>
#include <stdio.h>

struct console;
struct err;
struct lines_opts;

int regions_lines(const char *const *inputs, size_t nr_inputs, const struct lines_opts *o,
		  FILE *out, struct console *con, struct err *e);

#endif
