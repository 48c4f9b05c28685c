/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which ranks a regions verb visits (--ranks 0,2,4-7): parsed once, asked per
 * trace source. A leaf: the readers and the rank driver both ask it.
 */
#ifndef NUNATAK_REGIONS_RANK_FILTER_H
#define NUNATAK_REGIONS_RANK_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

/* Which ranks to visit: all when nr == 0. */
struct rank_filter {
	int32_t *ranks;
	size_t nr;
};

/* Parses "0,2,4-7" into f (caller frees f->ranks). */
int rank_filter_parse(struct rank_filter *f, const char *list, struct err *e);
bool rank_filter__has(const struct rank_filter *f, int32_t rank);

#endif
