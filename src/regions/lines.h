/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `regions lines`: per-region line profile from sampler files (.sps). Every
 * sample's address becomes an ELF virtual address of its module
 * (lines_symbolize.h), each module is symbolized in one batched call, and the
 * samples are counted per (region, file:line, function) over all ranks,
 * hottest first. Code without line information is one "??:0" row per region.
 * Shares rather than seconds: the timer's effective rate can be below the
 * requested one.
 */
#ifndef NUNATAK_REGIONS_LINES_H
#define NUNATAK_REGIONS_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct console;
struct err;
struct rank_filter;

struct lines_opts {
	int top; /* rows per region; 0 = all */
	bool json;
	bool source; /* show each line's source text when the file is readable */
	const struct rank_filter *ranks; /* only these ranks' .sps files; NULL: all */
};

int regions_lines(const char *const *inputs, size_t nr_inputs, const struct lines_opts *o,
		  FILE *out, struct console *con, struct err *e);

#endif
