/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `regions plot`: one self-contained HTML page (no network: script, style and
 * data inline) drawing a flame chart per rank and lane on a shared time axis,
 * with zoom (wheel), pan (drag) and a tooltip per call. Runs larger than
 * max_calls keep the longest calls of each rank (ancestors are never shorter
 * than their children, so the kept calls still nest) and say so on the page.
 */
#ifndef NUNATAK_REPORT_REGIONS_PLOT_H
#define NUNATAK_REPORT_REGIONS_PLOT_H

#include <stddef.h>
#include <stdio.h>

struct console;
struct err;
struct rank_filter;
struct trace_set;

struct plot_opts {
	const struct rank_filter *ranks;
	size_t max_calls;
};

int regions_plot(struct trace_set *ts, const struct plot_opts *o, FILE *out,
		 struct console *con, struct err *e);

/* The page's script and style: report-app/timeline/, embedded at build time
 * by report-app/embed.cmake (src/CMakeLists.txt). */
extern const char regions_plot_js[];
extern const size_t regions_plot_js_len;
extern const char regions_plot_css[];
extern const size_t regions_plot_css_len;

#endif
