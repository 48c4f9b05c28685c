/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ceilings per node in the report (model/node_machines.h, from the
 * manifest's "nodes"): the payload's Nodes rows gain each node's Machine and
 * Ceilings, a rank's placement row names the Ceilings it was placed against,
 * and the summary says which node used which Ceilings when they are not all
 * the launch node's.
 */
#ifndef NUNATAK_REPORT_NODES_VIEW_H
#define NUNATAK_REPORT_NODES_VIEW_H

#include "model/node_machines.h"

struct text_lines;

/* The manifest's "nodes" into nm (initialised here; empty when absent or
 * unreadable: ranks then keep the Run's Ceilings, as before nodes had their
 * own). */
void nodes_view_load(const json_t *manifest, struct node_machines *nm);

/* {flops_dp, dram_bandwidth}: each {value, unit, quality, reason} or null. */
json_t *nodes_view_ceilings_json(const struct node_machine *n);

/* Adds to each ranks.nodes.rows[] entry "machines": [{identity, cpu_model,
 * visible_cores, logical_cores, ceilings_source, reason, ceilings}] (one per
 * Machine its ranks ran on). ranks may be null. */
void nodes_view_augment(json_t *ranks, const struct node_machines *nm);

/* "Ceilings per node: ..." lines, only when some node's Ceilings are not
 * the launch node's. Returns 0 or -ENOMEM. */
int nodes_view_lines(const struct node_machines *nm, struct text_lines *out);

/* The payload's "roofline": {basis, nodes, ceilings[{name, value, unit,
 * quality, reason}], missing}: the Ceilings the Run-wide placement used when
 * they are its nodes' sum (model/node_machines.h), NULL otherwise (the
 * launch Machine's, payload "machine"). */
json_t *nodes_view_roofline_json(const struct node_machines *nm);

/* "  roofline of the whole Run ...: against the sum of the Ceilings of its 2
 * nodes (n1, n2): flops_dp ..., dram_bandwidth ..." when that applies; nm
 * may be NULL. Returns 0 or -ENOMEM. */
int nodes_view_roofline_line(const struct node_machines *nm, struct text_lines *out);

#endif
