/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `regions lines`: per-region line profile from sampler files (.sps). Every
 * sample's address becomes an ELF virtual address of its module
 * (lines_symbolize.h), each module is symbolized in one batched call, and the
 * samples are counted per (region, file:line, function) over all ranks,
 * hottest first. A sample weighs the timer expirations it stood for (its
 * signal's si_overrun + 1, .sps version 2): shares are of those ticks. Code without line information is one "??:0" row per region.
 * Shares rather than seconds: the timer's effective rate can be below the
 * requested one.
 */
#ifndef NUNATAK_REGIONS_LINES_H
#define NUNATAK_REGIONS_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct console;
struct err;
struct rank_filter;
struct sym_loc;
struct trace_set;

struct lines_opts {
	int top; /* rows per region; 0 = all */
	bool json;
	bool source; /* show each line's source text when the file is readable */
	const struct rank_filter *ranks; /* only these ranks' .sps files; NULL: all */
};

/* One row of the profile: samples of (region, file:line, function). file is
 * NULL for code without line information (one "??:0" row per region). */
struct lines_row {
	uint32_t region; /* into names->regions */
	const char *file, *func;
	int line;
	int64_t count; /* samples */
	int64_t ticks; /* timer expirations those samples stood for */
};

/* One sampler file read: its rank and the rate it achieved. */
struct lines_file {
	int32_t rank, hz;
	int64_t ticks, samples;
};

struct lines_result {
	struct lines_row *rows;     /* hottest region first, hottest line first within */
	size_t nr_rows;
	int64_t *region_total;      /* ticks (expirations) per region id */
	int64_t *region_samples;    /* samples per region id */
	int64_t sample_ticks;       /* Σ region_total: expirations of the samples read */
	const struct lines_file *files;
	size_t nr_files;
	size_t nr_samples;
	int64_t ticks;
	const struct trace_set *names; /* region names (names->regions[id].name) */
	/* owned storage */
	void *ctx_;
	struct sym_loc *locs_;
	size_t nr_locs_;
};

/* Reads, symbolizes and counts (rendered by report/regions_lines.h). out is
 * filled even on failure; release it with lines_result__release. */
int lines_compute(const char *const *inputs, size_t nr_inputs, const struct lines_opts *o,
		  struct lines_result *out, struct console *con, struct err *e);
void lines_result__release(struct lines_result *r);

#endif
