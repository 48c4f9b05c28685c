// SPDX-License-Identifier: BSD-3-Clause
// The manifest's "nodes": each node's Machine and the Ceilings its ranks use.
#include "model/node_machines.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

static const char *const source_names[] = {"launch", "own", "borrowed"};

const char *node_ceilings_source__name(enum node_ceilings_source s)
{
	return (unsigned)s < 3 ? source_names[s] : "borrowed";
}

static json_t *entry_json(const struct node_machine *n)
{
	json_t *ranks = json_array();
	for (size_t i = 0; ranks && i < n->nr_ranks; i++)
		if (json_array_append_new(ranks, json_integer(n->ranks[i]))) {
			json_decref(ranks);
			return NULL;
		}
	json_t *m = n->known ? machine__to_json(&n->m) : json_null();
	json_t *id = m && n->known ? json_object_get(m, "identity") : NULL;
	json_t *o = ranks && m
			    ? json_pack("{s:s, s:o, s:O, s:o, s:s, s:o}", "node", n->node, "ranks",
					ranks, "identity", id ? id : json_null(), "machine", m,
					"ceilings_source", node_ceilings_source__name(n->source),
					"reason", n->reason ? json_string(n->reason) : json_null())
			    : NULL;
	if (!o) {
		json_decref(ranks);
		json_decref(m);
	} else if (json_object_set_new(o, "calibrated", json_boolean(n->calibrated))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *node_machines__to_json(const struct node_machines *nm)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < nm->n; i++) {
		json_t *o = entry_json(&nm->v[i]);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static int entry_from_json(struct node_machine *n, const json_t *o, size_t k, struct err *e)
{
	const char *node = json_string_value(json_object_get(o, "node"));
	const json_t *ranks = json_object_get(o, "ranks");
	const char *src = json_string_value(json_object_get(o, "ceilings_source"));
	const char *reason = json_string_value(json_object_get(o, "reason"));
	const json_t *m = json_object_get(o, "machine");
	if (!node || !json_is_array(ranks))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
			       "nodes[%zu]: expected a node name and a ranks array", k);
	if (!(n->node = xstrdup(node)) || (reason && !(n->reason = xstrdup(reason))))
		return err_oom(e);
	n->source = NODE_CEILINGS_BORROWED; /* an unknown source is never trusted */
	n->calibrated = json_is_true(json_object_get(o, "calibrated"));
	for (int s = 0; src && s < 3; s++)
		if (strcmp(src, source_names[s]) == 0)
			n->source = (enum node_ceilings_source)s;
	size_t i;
	const json_t *r;
	json_array_foreach(ranks, i, r) {
		json_int_t v = json_integer_value(r);
		if (!json_is_integer(r) || v < 0 || v > (1 << 30))
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				       "nodes[%zu].ranks[%zu]: expected a rank number", k, i);
		if (xgrow((void **)&n->ranks, &n->cap_ranks, n->nr_ranks + 1, sizeof(int)))
			return err_oom(e);
		n->ranks[n->nr_ranks++] = (int)v;
	}
	if (json_is_object(m)) {
		int rc = machine__from_json(&n->m, m, e);
		if (rc)
			return rc;
		n->known = true;
	}
	return 0;
}

int node_machines__from_json(struct node_machines *nm, const json_t *j, struct err *e)
{
	memset(nm, 0, sizeof(*nm));
	if (!json_is_array(j))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "nodes: expected an array");
	size_t k;
	const json_t *o;
	json_array_foreach(j, k, o) {
		if (xgrow((void **)&nm->v, &nm->cap, nm->n + 1, sizeof(*nm->v))) {
			node_machines__release(nm);
			return err_oom(e);
		}
		struct node_machine *n = &nm->v[nm->n++];
		memset(n, 0, sizeof(*n));
		machine__init(&n->m);
		int rc = entry_from_json(n, o, k, e);
		if (rc) {
			node_machines__release(nm);
			return rc;
		}
	}
	return 0;
}

const struct node_machine *node_machines__of_rank(const struct node_machines *nm, int rank)
{
	for (size_t i = 0; nm && i < nm->n; i++)
		for (size_t r = 0; r < nm->v[i].nr_ranks; r++)
			if (nm->v[i].ranks[r] == rank)
				return &nm->v[i];
	return NULL;
}

const struct ceiling *node_machine__ceiling(const struct node_machine *n, const char *name)
{
	for (size_t i = 0; n && i < n->m.nr_ceilings; i++) {
		const struct ceiling *c = &n->m.ceilings[i];
		if (c->name && strcmp(c->name, name) == 0 && c->quality != QUALITY_UNAVAILABLE &&
		    isfinite(c->value) && c->value > 0)
			return c;
	}
	return NULL;
}

void node_machines__release(struct node_machines *nm)
{
	for (size_t i = 0; nm->v && i < nm->n; i++) {
		xfree(nm->v[i].node);
		xfree(nm->v[i].ranks);
		xfree(nm->v[i].reason);
		machine__release(&nm->v[i].m);
	}
	xfree(nm->v);
	memset(nm, 0, sizeof(*nm));
}
