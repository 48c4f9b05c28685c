/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The terminal summary, the report's first reading level (REFERENCE.md §7):
 * a headline with coverage, findings by decreasing share with their evidence
 * and Quality, "others", then "what this report does not say". Returns plain
 * lines; the console decides how they reach the log (timestamps off-tty).
 * An absent quantity is written "unavailable" with its reason, never zero.
 */
#ifndef NUNATAK_REPORT_SUMMARY_H
#define NUNATAK_REPORT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/text.h" /* struct text_lines, the summary's output */

struct analysis;
struct pivot;

#define SUMMARY_MAX_FINDINGS 10

struct rank_imbalance;
struct node_machines;
struct machine;
typedef struct json_t json_t;

struct summary_ctx {
	const char *ceilings_reason; /* why the Machine has no Ceilings, or NULL */
	int nr_ranks;                /* -1 outside MPI */
	int nr_sampled_ranks;
	const struct rank_imbalance *ranks; /* the rank view (analysis/imbalance.h), or NULL */
	const struct node_machines *nodes;  /* each node's Ceilings (report/nodes_view.h), or NULL */
	double app_wall_s;           /* the launch's duration, <= 0: unknown (report/time_view.h) */
	double app_cpu_s;            /* its wait4 CPU time, < 0: unknown (0 reads unknown too) */
	bool cpu_includes_collector;
	size_t nr_degradations;      /* the Run's degradations, listed after the summary */
	const struct machine *machine; /* its network Ceilings (report/netceil_view.h), or NULL */
	const json_t *cost;          /* the manifest's cost (where they came from), or NULL */
};

/* Appends the summary lines to *out. Returns 0 or -ENOMEM. */
int summary_render(const struct analysis *a, const struct pivot *p,
		   const struct summary_ctx *ctx, struct text_lines *out);

#endif
