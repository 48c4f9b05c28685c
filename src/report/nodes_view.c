// SPDX-License-Identifier: BSD-3-Clause
#include "report/nodes_view.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/text.h"
#include "model/machine_identity.h"

void nodes_view_load(const json_t *manifest, struct node_machines *nm)
{
	struct err e = {0};
	const json_t *j = manifest ? json_object_get(manifest, "nodes") : NULL;
	if (!json_is_array(j) || node_machines__from_json(nm, j, &e) < 0)
		memset(nm, 0, sizeof(*nm));
}

static json_t *ceiling_json(const struct node_machine *n, const char *name)
{
	for (size_t i = 0; i < n->m.nr_ceilings; i++) {
		const struct ceiling *c = &n->m.ceilings[i];
		if (c->name && strcmp(c->name, name) == 0)
			return quality__json(c->value, c->unit, c->quality, c->reason);
	}
	return json_null();
}

json_t *nodes_view_ceilings_json(const struct node_machine *n)
{
	return json_pack("{s:o, s:o}", "flops_dp", ceiling_json(n, "flops_dp"), "dram_bandwidth",
			 ceiling_json(n, "dram_bandwidth"));
}

static json_t *int_or_null(int64_t v)
{
	return v > 0 ? json_integer(v) : json_null();
}

static json_t *machine_row(const struct node_machine *n)
{
	char id[MACHINE_ID_SIZE] = "";
	bool have_id = n->known && machine_identity(&n->m, id) == 0;
	return json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:o}", "identity",
			 have_id ? json_string(id) : json_null(), "cpu_model",
			 n->known && n->m.cpu_model ? json_string(n->m.cpu_model) : json_null(),
			 "visible_cores", int_or_null(n->known ? n->m.alloc.visible_cores : -1),
			 "logical_cores", int_or_null(n->known ? n->m.logical_cores : -1),
			 "ceilings_source", node_ceilings_source__name(n->source), "reason",
			 n->reason ? json_string(n->reason) : json_null(), "ceilings",
			 nodes_view_ceilings_json(n));
}

void nodes_view_augment(json_t *ranks, const struct node_machines *nm)
{
	json_t *rows = json_object_get(json_object_get(ranks, "nodes"), "rows");
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *node = json_string_value(json_object_get(row, "node"));
		json_t *ms = json_array();
		for (size_t k = 0; ms && node && k < nm->n; k++)
			if (strcmp(nm->v[k].node, node) == 0)
				json_array_append_new(ms, machine_row(&nm->v[k]));
		if (ms)
			json_object_set_new(row, "machines", ms);
	}
}

/* "flops_dp 1.2e+10 flop/s measured" or "flops_dp unavailable" */
static void ceiling_text(const struct node_machine *n, const char *name, char *buf, size_t cap)
{
	const struct ceiling *c = node_machine__ceiling(n, name);
	if (!c)
		snprintf(buf, cap, "%s unavailable", name);
	else
		snprintf(buf, cap, "%s %.3g %s %s", name, c->value, c->unit ? c->unit : "",
			 quality__name(c->quality));
}

int nodes_view_lines(const struct node_machines *nm, struct text_lines *out)
{
	bool all_launch = true;
	for (size_t i = 0; i < nm->n; i++)
		all_launch &= nm->v[i].source == NODE_CEILINGS_LAUNCH;
	if (!nm->n || all_launch)
		return 0;
	int rc = text_lines__add(out, "  Ceilings per node (each rank is placed against its "
				      "node's):");
	for (size_t i = 0; rc == 0 && i < nm->n; i++) {
		const struct node_machine *n = &nm->v[i];
		char id[MACHINE_ID_SIZE] = "unknown", f[96], b[96];
		if (n->known && machine_identity(&n->m, id))
			snprintf(id, sizeof(id), "unknown");
		ceiling_text(n, "flops_dp", f, sizeof(f));
		ceiling_text(n, "dram_bandwidth", b, sizeof(b));
		static const char *const src[] = {"the launch node's Machine",
						  "its own Machine's cached profile",
						  "borrowed from the launch node"};
		rc = text_lines__add(out, "    %s (Machine %s, %zu rank%s): %s, %s; %s%s%s", n->node, id,
				     n->nr_ranks, n->nr_ranks == 1 ? "" : "s", f, b,
				     src[(unsigned)n->source < 3 ? n->source : 2],
				     n->reason ? ": " : "", n->reason ? n->reason : "");
	}
	return rc;
}

json_t *nodes_view_roofline_json(const struct node_machines *nm)
{
	struct run_ceilings rc;
	if (node_machines__run_ceilings(nm, &rc) < 0 || !rc.applies)
		return NULL;
	json_t *cs = json_array();
	for (size_t k = 0; cs && k < rc.n; k++) {
		json_t *c = quality__json(rc.c[k].value, rc.c[k].unit, rc.c[k].quality,
					  rc.c[k].reason);
		if (!c || json_object_set_new(c, "name", json_string(rc.c[k].name)) ||
		    json_array_append_new(cs, c)) {
			json_decref(cs);
			cs = NULL;
		}
	}
	json_t *o = cs ? json_pack("{s:s, s:I, s:o, s:o}", "basis", rc.basis, "nodes",
				   (json_int_t)rc.nr_nodes, "ceilings", cs, "missing",
				   rc.missing ? json_string(rc.missing) : json_null())
		       : NULL;
	run_ceilings__release(&rc);
	return o;
}

int nodes_view_roofline_line(const struct node_machines *nm, struct text_lines *out)
{
	struct run_ceilings rc;
	if (!nm || node_machines__run_ceilings(nm, &rc) < 0)
		return nm ? -ENOMEM : 0;
	int r = 0;
	if (rc.applies) {
		char f[160] = "flops_dp unavailable", b[160] = "dram_bandwidth unavailable";
		for (size_t k = 0; k < rc.n; k++)
			snprintf(strcmp(rc.c[k].name, "flops_dp") ? b : f, sizeof(f), "%s %.3g %s %s",
				 rc.c[k].name, rc.c[k].value, rc.c[k].unit, quality__name(rc.c[k].quality));
		r = text_lines__add(out, "  roofline of the whole Run (every rank's FLOPs together): "
				    "against %s: %s, %s%s%s", rc.basis, f, b,
				    rc.missing ? "; " : "", rc.missing ? rc.missing : "");
	}
	run_ceilings__release(&rc);
	return r;
}
