// SPDX-License-Identifier: BSD-3-Clause
/* Where the network Ceilings came from, checked against the nodes the
 * application ran on (ranks_mpi.h: run_netceil_check). */
#include "run/ranks_mpi.h"

#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "run/pipeline.h"
#include "common/alloc.h"
#include "model/machine.h"
#include "mpi/netcache_scope.h"

/* The application's nodes, "n1,n2" canonical (malloc'd), or NULL. */
static char *app_nodes(const struct run_state *s)
{
	size_t i, len = 1;
	const json_t *o;
	json_array_foreach(s->out.nodes, i, o) {
		const char *n = json_string_value(json_object_get(o, "node"));
		if (!n || !*n || strchr(n, ','))
			return NULL;
		len += strlen(n) + 1;
	}
	if (!json_array_size(s->out.nodes))
		return NULL;
	char *out = xmalloc(len), *p = out;
	if (!out)
		return NULL;
	*p = '\0';
	json_array_foreach(s->out.nodes, i, o)
		p += sprintf(p, "%s%s", p == out ? "" : ",",
			     json_string_value(json_object_get(o, "node")));
	netcache_nodes_canon(out);
	return out;
}

/* A hit's stored Ceiling named name, or NULL. */
static const json_t *stored(const struct run_state *s, const char *name)
{
	size_t k;
	const json_t *x;
	json_array_foreach(s->netceil.stored, k, x) {
		const char *n = json_string_value(json_object_get(x, "name"));
		if (n && !strcmp(n, name))
			return x;
	}
	return NULL;
}

/* Each network Ceiling: estimated with `why` before its own reason; or,
 * without why, a hit's stored Quality and reason (checked: same nodes). */
static void settle(struct run_state *s, const char *why)
{
	struct machine *m = s->machine;
	for (size_t i = 0; i < m->nr_ceilings; i++) {
		struct ceiling *c = &m->ceilings[i];
		if (!c->name || strncmp(c->name, "network_", 8) || c->quality == QUALITY_UNAVAILABLE)
			continue;
		const json_t *j = s->netceil.cached ? stored(s, c->name) : NULL;
		const char *own = s->netceil.cached ? json_string_value(json_object_get(j, "reason"))
						    : c->reason;
		enum quality q = QUALITY_ESTIMATED;
		char *reason = NULL;
		if (why)
			reason = xasprintf("%s%s%s", why, own ? "; " : "", own ? own : "");
		else if (!s->netceil.cached)
			continue; /* measured now, on the application's nodes: as measured */
		else if (quality__parse(json_string_value(json_object_get(j, "quality")), &q) == 0)
			reason = own ? xstrdup(own) : NULL;
		else
			reason = xstrdup("a cached Ceiling without its Quality");
		xfree(c->reason);
		c->reason = reason;
		c->quality = q;
	}
}

/* True when ranks 0 and 1 ran on one node (the manifest's nodes[].ranks). */
static bool zero_one_together(const struct run_state *s)
{
	size_t i, k;
	const json_t *o, *r;
	json_array_foreach(s->out.nodes, i, o) {
		int seen = 0;
		json_array_foreach(json_object_get(o, "ranks"), k, r)
			seen |= json_integer_value(r) == 0 ? 1 : json_integer_value(r) == 1 ? 2 : 0;
		if (seen == 3)
			return true;
	}
	return false;
}

/* A hit measured across nodes with one rank per node has no within-node
 * pair, which a ping-pong would measure for this Run's placement: said, not
 * invented. (On one node, network_latency itself is the within-node pair.) */
static void note_no_intranode(struct run_state *s)
{
	if (!s->netceil.cached || !strchr(s->netceil.nodes, ',') || /* one node: no interconnect */
	    stored(s, "network_latency_intranode") ||
	    !stored(s, "network_latency") || !zero_one_together(s))
		return;
	char *more = xasprintf("%s; no within-node pair (network_*_intranode): the Run that "
			       "measured it had one rank per node", s->netceil.source);
	if (more) {
		xfree(s->netceil.source);
		s->netceil.source = more;
	}
}

void run_netceil_check(struct run_state *s)
{
	if (!s->machine || !s->netceil.source || !s->netceil.nodes)
		return;
	char *app = app_nodes(s), *was = netcache_nodes_spaced(s->netceil.nodes);
	char *ran = app ? netcache_nodes_spaced(app) : NULL;
	char *why = NULL, *source = NULL;
	if (!was || (app && !ran))
		goto out;
	if (app && !strcmp(app, s->netceil.nodes)) {
		source = xasprintf("%s (this Run's nodes)", s->netceil.source);
	} else if (app) {
		why = xasprintf("%s by the ping-pong on nodes %s; the application ran on %s",
				s->netceil.cached ? "measured in an earlier Run" : "measured", was,
				ran);
		source = xasprintf("%s, not this Run's nodes (%s): estimated", s->netceil.source,
				   ran);
	} else if (s->netceil.cached) {
		why = xasprintf("measured in an earlier Run on nodes %s; the nodes this Run's "
				"ranks ran on are unknown", was);
		source = xasprintf("%s; this Run's nodes are unknown: estimated",
				   s->netceil.source);
	}
	if (app || s->netceil.cached)
		settle(s, why);
	if (source) {
		xfree(s->netceil.source);
		s->netceil.source = source;
		source = NULL;
	}
	if (app && !strcmp(app, s->netceil.nodes))
		note_no_intranode(s);
	/* said once, by the summary's network Ceilings lines with their Quality
	 * (report/netceil_view.h), from run_netceil_json */
out:
	xfree(app);
	xfree(was);
	xfree(ran);
	xfree(why);
	xfree(source);
}

json_t *run_netceil_json(const struct run_state *s)
{
	if (!s->netceil.source)
		return NULL;
	json_t *nodes = json_array();
	char *copy = s->netceil.nodes ? xstrdup(s->netceil.nodes) : NULL, *save = NULL;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; nodes && t;
	     t = strtok_r(NULL, ",", &save))
		json_array_append_new(nodes, json_string(t));
	xfree(copy);
	char at[32] = "";
	time_t tt = (time_t)s->netceil.at;
	struct tm tm;
	if (s->netceil.at > 0 && gmtime_r(&tt, &tm))
		strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:s, s:o, s:s?, s:s}", "how", s->netceil.cached ? "cached" : "measured",
			 "nodes", nodes ? nodes : json_null(), "measured_at", at[0] ? at : NULL,
			 "summary", s->netceil.source);
}

void run_netceil_into(const struct run_state *s, json_t *doc)
{
	json_t *cost = json_object_get(doc, "cost");
	if (!json_is_object(doc) || json_object_get(cost, "network_ceilings_from"))
		return;
	json_t *from = run_netceil_json(s);
	if (!from)
		return;
	if (!json_is_object(cost)) {
		cost = json_object();
		if (!cost || json_object_set_new(doc, "cost", cost) < 0) {
			json_decref(from);
			return;
		}
	}
	json_object_set_new(cost, "network_ceilings_from", from);
}
