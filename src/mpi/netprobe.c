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

int netprobe_parse(const char *text, struct netprobe *np)
{
	*np = (struct netprobe){.ranks = -1, .latency_s = -1};
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
		} else if (starts(l, "latency_s")) {
			np->latency_s = number(l, 1);
		} else if (starts(l, "bandwidth_rep") && np->nr_bandwidth < NETPROBE_MAX_REPS) {
			double v = number(l, 2);
			if (v > 0)
				np->bandwidth[np->nr_bandwidth++] = v;
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

int netprobe_ceilings(const struct netprobe *np, struct machine *m)
{
	char common[256] = "";
	if (np->node0[0] && strcmp(np->node0, np->node_last) == 0)
		snprintf(common, sizeof(common),
			 "measured over shared memory: single-node allocation, not the "
			 "interconnect");
	int n = 0, rc;
	if (np->latency_s > 0) {
		if ((rc = add(m, "network_latency", np->latency_s, "s", common)) < 0)
			return rc;
		n++;
	}
	if (np->nr_bandwidth > 0) {
		double lo = np->bandwidth[0], hi = lo;
		for (int i = 1; i < np->nr_bandwidth; i++) {
			lo = fmin(lo, np->bandwidth[i]);
			hi = fmax(hi, np->bandwidth[i]);
		}
		char reason[400];
		double spread = (hi - lo) / hi;
		if (spread > NETPROBE_DISPERSION)
			snprintf(reason, sizeof(reason), "%s%srepetitions disperse by %.0f%%", common,
				 common[0] ? "; " : "", 100 * spread);
		else
			snprintf(reason, sizeof(reason), "%s", common);
		if ((rc = add(m, "network_bandwidth", hi, "byte/s", reason)) < 0)
			return rc;
		n++;
	}
	return n;
}
