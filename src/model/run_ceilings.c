// SPDX-License-Identifier: BSD-3-Clause
// The Ceilings of the whole Run: each node's summed (model/node_machines.h).
#include "model/node_machines.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

#define BASIS_NAMES 4 /* node names listed in the basis, then "..." */

static const char *const run_ceiling_names[2] = {"flops_dp", "dram_bandwidth"};

/* Appends `r` to the "; "-joined list *acc unless already there. */
static int join_reason(char **acc, const char *r)
{
	if (!r || !*r || (*acc && strstr(*acc, r)))
		return 0;
	char *j = *acc ? xasprintf("%s; %s", *acc, r) : xstrdup(r);
	if (!j)
		return -ENOMEM;
	xfree(*acc);
	*acc = j;
	return 0;
}

/* The first entry of each node (entries come in order of their lowest
 * rank); *several: a node held more than one entry. */
static bool first_of_node(const struct node_machines *nm, size_t i, bool *several)
{
	for (size_t k = 0; k < nm->n; k++) {
		if (k == i || strcmp(nm->v[k].node, nm->v[i].node))
			continue;
		*several = true;
		if (k < i)
			return false;
	}
	return true;
}

/* One Ceiling summed over the nodes: 1 when summed, 0 when a node lacks it
 * (the reason added to rc->missing), -ENOMEM. */
static int sum_one(const struct node_machines *nm, const char *name, struct ceiling *out,
		   struct run_ceilings *rc)
{
	double sum = 0;
	enum quality q = QUALITY_MEASURED;
	const char *unit = strcmp(name, "flops_dp") ? "B/s" : "flop/s";
	char *why = NULL, *lack = NULL;
	int err = 0;
	for (size_t i = 0; err == 0 && i < nm->n; i++) {
		bool several = false;
		if (!first_of_node(nm, i, &several))
			continue;
		const struct node_machine *n = &nm->v[i];
		const struct ceiling *c = node_machine__ceiling(n, name);
		if (!c) {
			lack = xasprintf("node %s has no %s Ceiling: the Run's is unknown", n->node,
					 name);
			err = lack ? 0 : -ENOMEM;
			break;
		}
		sum += c->value;
		unit = c->unit ? c->unit : unit;
		q = quality__worst(q, c->quality);
		err = join_reason(&why, c->reason);
		if (err == 0 && several) {
			q = quality__worst(q, QUALITY_ESTIMATED);
			char *s = xasprintf("node %s ran ranks under several Machines (CPU sets): "
					    "counted once, with its lowest rank's", n->node);
			err = s ? join_reason(&why, s) : -ENOMEM;
			xfree(s);
		}
	}
	if (err == 0 && lack) {
		err = join_reason(&rc->missing, lack);
		xfree(lack);
		xfree(why);
		return err ? err : 0;
	}
	if (err == 0) {
		if (q == QUALITY_MEASURED) {
			xfree(why);
			why = NULL;
		}
		*out = (struct ceiling){.name = xstrdup(name), .value = sum, .unit = xstrdup(unit),
					.quality = q, .reason = why};
		if (out->name && out->unit)
			return 1;
		xfree(out->name);
		xfree(out->unit);
		why = out->reason;
		memset(out, 0, sizeof(*out));
		err = -ENOMEM;
	}
	xfree(why);
	return err;
}

/* "the sum of the Ceilings of its 2 nodes (n1, n2)" */
static char *basis_text(const struct node_machines *nm, size_t nodes)
{
	char names[256] = "";
	size_t listed = 0, len = 0;
	for (size_t i = 0; i < nm->n && len < sizeof(names); i++) {
		bool several = false;
		if (!first_of_node(nm, i, &several))
			continue;
		if (listed == BASIS_NAMES) {
			snprintf(names + len, sizeof(names) - len, ", ...");
			break;
		}
		int w = snprintf(names + len, sizeof(names) - len, "%s%s", listed ? ", " : "",
				 nm->v[i].node);
		len += w > 0 ? (size_t)w : 0;
		listed++;
	}
	return nodes == 1 ? xasprintf("the Ceilings of its one node (%s)", names)
			  : xasprintf("the sum of the Ceilings of its %zu nodes (%s)", nodes, names);
}

int node_machines__run_ceilings(const struct node_machines *nm, struct run_ceilings *rc)
{
	memset(rc, 0, sizeof(*rc));
	for (size_t i = 0; nm && i < nm->n; i++) {
		bool several = false;
		rc->nr_nodes += first_of_node(nm, i, &several);
	}
	/* One node: the launch node's Ceilings stay the Run's unless every
	 * Machine of it has its own (a job placed on another Machine than the
	 * launch node's): on the launch node itself they cover the allocation
	 * the ranks' own CPU sets split, and a borrowed entry holds them anyway. */
	bool all_own = true;
	for (size_t i = 0; nm && i < nm->n; i++)
		all_own &= nm->v[i].source == NODE_CEILINGS_OWN;
	if (!rc->nr_nodes || (rc->nr_nodes == 1 && !all_own))
		return 0;
	rc->applies = true;
	for (size_t k = 0; k < 2; k++) {
		int r = sum_one(nm, run_ceiling_names[k], &rc->c[rc->n], rc);
		if (r < 0) {
			run_ceilings__release(rc);
			return r;
		}
		rc->n += (size_t)r;
	}
	rc->basis = basis_text(nm, rc->nr_nodes);
	if (!rc->basis) {
		run_ceilings__release(rc);
		return -ENOMEM;
	}
	return 0;
}

void run_ceilings__release(struct run_ceilings *rc)
{
	for (size_t k = 0; k < rc->n; k++)
		ceiling__release(&rc->c[k]);
	xfree(rc->basis);
	xfree(rc->missing);
	memset(rc, 0, sizeof(*rc));
}
