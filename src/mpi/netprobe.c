// SPDX-License-Identifier: BSD-3-Clause
#include "mpi/netprobe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/machine.h"

static void field(const char *line, int idx, char *out, size_t cap)
{
	const char *p = line;
	for (int i = 0; i < idx && p; i++) {
		p = strchr(p, '\t');
		p = p ? p + 1 : NULL;
	}
	size_t n = p ? strcspn(p, "\t\n") : 0;
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p ? p : "");
}

static bool starts(const char *line, const char *key)
{
	size_t n = strlen(key);
	return strncmp(line, key, n) == 0 && line[n] == '\t';
}

static double number(const char *line, int idx)
{
	char buf[64], *end = NULL;
	field(line, idx, buf, sizeof(buf));
	double v = strtod(buf, &end);
	return end && end != buf && !*end && isfinite(v) ? v : -1;
}

/* A `node <name>` line: appended to np->nodes (the probe prints them sorted,
 * once each). A name holding "," could not be told apart, and a set too
 * long for the buffer is not a set: both leave it unknown. */
static void add_node(struct netprobe *np, const char *line)
{
	char name[256];
	field(line, 1, name, sizeof(name));
	size_t have = strlen(np->nodes), n = strlen(name);
	if (!n || np->nodes_overflow)
		return;
	if (strchr(name, ',') || have + n + 2 > sizeof(np->nodes)) {
		np->nodes_overflow = true;
		np->nodes[0] = '\0';
		return;
	}
	snprintf(np->nodes + have, sizeof(np->nodes) - have, "%s%s", have ? "," : "", name);
}

int netprobe_parse(const char *text, struct netprobe *np)
{
	*np = (struct netprobe){.ranks = -1, .latency_s = -1, .intra_latency_s = -1};
	bool saw_ranks = false;
	for (const char *l = text; l && *l;) {
		if (starts(l, "stack")) {
			field(l, 1, np->impl, sizeof(np->impl));
			field(l, 2, np->version, sizeof(np->version));
		} else if (starts(l, "ranks")) {
			double v = number(l, 1);
			np->ranks = v >= 1 && v < 1e9 ? (int)v : -1;
			saw_ranks = true;
		} else if (starts(l, "nodes")) {
			field(l, 1, np->node0, sizeof(np->node0));
			field(l, 2, np->node_last, sizeof(np->node_last));
		} else if (starts(l, "node")) {
			add_node(np, l);
		} else if (starts(l, "latency_s")) {
			np->latency_s = number(l, 1);
		} else if (starts(l, "bandwidth_rep") && np->nr_bandwidth < NETPROBE_MAX_REPS) {
			double v = number(l, 2);
			if (v > 0)
				np->bandwidth[np->nr_bandwidth++] = v;
		} else if (starts(l, "intranode_nodes")) {
			field(l, 1, np->intra_node, sizeof(np->intra_node));
		} else if (starts(l, "intranode_latency_s")) {
			np->intra_latency_s = number(l, 1);
		} else if (starts(l, "intranode_bandwidth_rep") &&
			   np->nr_intra_bandwidth < NETPROBE_MAX_REPS) {
			double v = number(l, 2);
			if (v > 0)
				np->intra_bandwidth[np->nr_intra_bandwidth++] = v;
		} else if (strncmp(l, "end", 3) == 0 && (l[3] == '\n' || !l[3])) {
			np->complete = true;
		}
		const char *nl = strchr(l, '\n');
		l = nl ? nl + 1 : NULL;
	}
	return saw_ranks ? 0 : -EINVAL;
}

static int add(struct machine *m, const char *name, double v, const char *unit,
	       const char *reason)
{
	struct ceiling c = {.name = (char *)name, .value = v, .unit = (char *)unit,
			    .quality = reason[0] ? QUALITY_ESTIMATED : QUALITY_MEASURED,
			    .reason = reason[0] ? (char *)reason : NULL};
	return machine__add_ceiling(m, &c) < 0 ? -ENOMEM : 1;
}

/* One pair's latency and bandwidth Ceilings, named name_latency /
 * name_bandwidth + suffix. */
static int pair(struct machine *m, const char *suffix, double latency, const double *bw, int nbw,
		const char *common)
{
	char name[64];
	int n = 0, rc;
	if (latency > 0) {
		snprintf(name, sizeof(name), "network_latency%s", suffix);
		if ((rc = add(m, name, latency, "s", common)) < 0)
			return rc;
		n++;
	}
	if (nbw > 0) {
		double lo = bw[0], hi = lo;
		for (int i = 1; i < nbw; i++) {
			lo = fmin(lo, bw[i]);
			hi = fmax(hi, bw[i]);
		}
		char reason[400];
		double spread = (hi - lo) / hi;
		if (spread > NETPROBE_DISPERSION)
			snprintf(reason, sizeof(reason), "%s%srepetitions disperse by %.0f%%", common,
				 common[0] ? "; " : "", 100 * spread);
		else
			snprintf(reason, sizeof(reason), "%s", common);
		snprintf(name, sizeof(name), "network_bandwidth%s", suffix);
		if ((rc = add(m, name, hi, "byte/s", reason)) < 0)
			return rc;
		n++;
	}
	return n;
}

int netprobe_ceilings(const struct netprobe *np, struct machine *m)
{
	char common[256] = "";
	bool one_node = np->node0[0] && strcmp(np->node0, np->node_last) == 0;
	if (one_node)
		snprintf(common, sizeof(common),
			 "measured over shared memory: single-node allocation, not the "
			 "interconnect");
	int n = pair(m, "", np->latency_s, np->bandwidth, np->nr_bandwidth, common);
	if (n < 0 || one_node || !np->intra_node[0] || strcmp(np->intra_node, np->node0) != 0)
		return n;
	int k = pair(m, "_intranode", np->intra_latency_s, np->intra_bandwidth,
		     np->nr_intra_bandwidth, "");
	return k < 0 ? k : n + k;
}
