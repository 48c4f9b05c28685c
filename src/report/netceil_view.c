// SPDX-License-Identifier: BSD-3-Clause
#include "report/netceil_view.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/text.h"
#include "model/machine.h"
#include "model/model.h"

static bool is_network(const struct ceiling *c)
{
	return c->name && strncmp(c->name, "network_", 8) == 0;
}

/* The worst Quality of m's network Ceilings; false when it has none. */
static bool worst(const struct machine *m, enum quality *q)
{
	bool any = false;
	*q = QUALITY_MEASURED;
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (is_network(&m->ceilings[i])) {
			*q = quality__worst(*q, m->ceilings[i].quality);
			any = true;
		}
	return any;
}

/* cost.network_ceilings_from.<key> as a string, or NULL. */
static const char *from_str(const json_t *cost, const char *key)
{
	return json_string_value(json_object_get(json_object_get(cost, "network_ceilings_from"),
						 key));
}

/* "2.8 us", "2.38 Gbyte/s"; "unavailable" without a value. */
static void value_text(const struct ceiling *c, char *buf, size_t cap)
{
	const char *u = c->unit ? c->unit : "";
	double v = c->value, a = fabs(v);
	if (c->quality == QUALITY_UNAVAILABLE || isnan(v))
		snprintf(buf, cap, "unavailable");
	else if (!strcmp(u, "s") && a > 0 && a < 1)
		snprintf(buf, cap, "%.3g %s", a < 1e-6 ? v * 1e9 : a < 1e-3 ? v * 1e6 : v * 1e3,
			 a < 1e-6 ? "ns" : a < 1e-3 ? "us" : "ms");
	else
		format_si(buf, cap, v, u);
}

int netceil_view_lines(const struct machine *m, const json_t *cost, struct text_lines *out)
{
	enum quality q;
	if (!m || !worst(m, &q))
		return 0;
	const char *from = from_str(cost, "summary");
	int rc = text_lines__add(out, "  network Ceilings (%s): %s", quality__name(q),
				 from ? from : "where they came from is not recorded in this Run");
	for (size_t i = 0; rc == 0 && i < m->nr_ceilings; i++) {
		const struct ceiling *c = &m->ceilings[i];
		if (!is_network(c))
			continue;
		char v[48];
		value_text(c, v, sizeof(v));
		rc = text_lines__add(out, "    %s %s, %s%s%s", c->name, v, quality__name(c->quality),
				     c->reason ? ": " : "", c->reason ? c->reason : "");
	}
	return rc;
}

json_t *netceil_view_payload(const json_t *manifest)
{
	const json_t *cost = json_object_get(manifest, "cost"), *c;
	size_t i;
	bool any = false;
	enum quality q = QUALITY_MEASURED, one;
	json_array_foreach(json_object_get(json_object_get(manifest, "machine"), "ceilings"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		if (!name || strncmp(name, "network_", 8))
			continue;
		any = true;
		if (quality__parse(json_string_value(json_object_get(c, "quality")), &one) != 0)
			one = QUALITY_UNAVAILABLE; /* a Ceiling without its Quality is not taken as measured */
		q = quality__worst(q, one);
	}
	if (!any)
		return json_null();
	const json_t *from = json_object_get(cost, "network_ceilings_from");
	json_t *nodes = json_object_get(from, "nodes");
	return json_pack("{s:s, s:s?, s:s?, s:O?, s:s?}", "quality", quality__name(q), "from",
			 from_str(cost, "summary"), "how", from_str(cost, "how"), "nodes",
			 json_is_array(nodes) ? nodes : NULL, "measured_at",
			 from_str(cost, "measured_at"));
}
