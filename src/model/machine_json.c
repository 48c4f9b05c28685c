// SPDX-License-Identifier: BSD-3-Clause
// The plain-JSON form of a Machine, shared by manifest.json, the profile
// cache, recordings and the report payload (one function, so they never
// drift apart). Unknown values are null, never 0.
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/machine_identity.h"
#include "model/machine.h"

/* A string that is not valid UTF-8 (a hostname or a brand string from a
 * misconfigured system) must not lose the whole Machine: its non-ASCII bytes
 * become '?'. */
static json_t *str_or_null(const char *s)
{
	if (!s)
		return json_null();
	json_t *v = json_string(s);
	if (v)
		return v;
	char *copy = xstrdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	xfree(copy);
	return v;
}

static json_t *int_or_null(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *real_or_null(bool has, double v)
{
	return has && isfinite(v) ? json_real(v) : json_null();
}

/* json_object_set_new that remembers a failure instead of stopping, so a
 * builder can set every key and check once. */
static void put(json_t *o, const char *key, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, key, v))
		*ok = false;
}

static json_t *cpu_to_json(const struct cpu_ident *c)
{
	bool ok = true;
	json_t *o = json_object(), *flags = json_array();
	if (!o || !flags) {
		json_decref(o);
		json_decref(flags);
		return NULL;
	}
	for (size_t i = 0; i < c->nr_flags; i++)
		if (json_array_append_new(flags, json_string(c->flags[i])))
			ok = false;
	put(o, "vendor", str_or_null(c->vendor), &ok);
	put(o, "family", int_or_null(c->family), &ok);
	put(o, "model", int_or_null(c->model), &ok);
	put(o, "stepping", int_or_null(c->stepping), &ok);
	put(o, "flags", flags, &ok);
	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

static json_t *alloc_to_json(const struct allocation *a)
{
	bool ok = true;
	json_t *o = json_object(), *mask = a->has_affinity ? json_array() : json_null();
	if (!o || !mask) {
		json_decref(o);
		json_decref(mask);
		return NULL;
	}
	for (size_t i = 0; a->has_affinity && i < a->nr_affinity; i++)
		if (json_array_append_new(mask, json_integer(a->affinity_mask[i])))
			ok = false;
	put(o, "visible_cores", int_or_null(a->visible_cores), &ok);
	put(o, "affinity_mask", mask, &ok);
	put(o, "cpu_quota", real_or_null(a->has_cpu_quota, a->cpu_quota), &ok);
	put(o, "memory_limit_bytes", int_or_null(a->memory_limit_bytes), &ok);
	put(o, "cgroup", str_or_null(a->cgroup), &ok);
	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

static json_t *ceilings_to_json(const struct ceiling *v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < n; i++) {
		const struct ceiling *c = &v[i];
		bool ok = true;
		json_t *o = json_object();
		if (!o)
			ok = false;
		else {
			put(o, "name", json_string(c->name), &ok);
			put(o, "value", real_or_null(true, c->value), &ok);
			put(o, "unit", json_string(c->unit), &ok);
			put(o, "quality", json_string(quality__name(c->quality)), &ok);
			put(o, "reason", str_or_null(c->reason), &ok);
		}
		if (!ok || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *machine__to_json(const struct machine *m)
{
	char id[MACHINE_ID_SIZE];
	double cores = 0;
	bool has_cores = machine__allocated_cores(m, &cores), ok = true;
	json_t *o = json_object();
	if (!o || machine_identity(m, id))
		goto fail;
	put(o, "system", str_or_null(m->system), &ok);
	put(o, "kernel", str_or_null(m->kernel), &ok);
	put(o, "architecture", str_or_null(m->architecture), &ok);
	put(o, "cpu_model", str_or_null(m->cpu_model), &ok);
	put(o, "hostname", str_or_null(m->hostname), &ok);
	put(o, "identity", json_string(id), &ok);
	put(o, "logical_cores", int_or_null(m->logical_cores), &ok);
	put(o, "allocated_cores", real_or_null(has_cores, cores), &ok);
	put(o, "cpu", cpu_to_json(&m->cpu), &ok);
	put(o, "allocation", alloc_to_json(&m->alloc), &ok);
	put(o, "ceilings", ceilings_to_json(m->ceilings, m->nr_ceilings), &ok);
	if (m->nr_costs)
		put(o, "costs", ceilings_to_json(m->costs, m->nr_costs), &ok);
	/* A replayed Run's Machine is the recording's, not the replaying host's. */
	put(o, "recorded", json_boolean(m->replayed), &ok);
	if (ok)
		return o;
fail:
	json_decref(o);
	return NULL;
}

/* ---- reading ---- */

static int get_str(char **dst, const json_t *o, const char *key, struct err *e)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "machine.%s: expected a string or null",
			       key);
	*dst = xstrdup(json_string_value(v));
	return *dst ? 0 : err_oom(e);
}

static int get_int(int64_t *dst, const json_t *o, const char *key, struct err *e)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
			       "machine.%s: expected a non-negative integer or null", key);
	*dst = json_integer_value(v);
	return 0;
}

static int cpu_from_json(struct cpu_ident *c, const json_t *o, struct err *e)
{
	if (!json_is_object(o))
		return 0;
	int64_t fam = -1, mod = -1, step = -1;
	int rc = get_str(&c->vendor, o, "vendor", e);
	if (!rc)
		rc = get_int(&fam, o, "family", e);
	if (!rc)
		rc = get_int(&mod, o, "model", e);
	if (!rc)
		rc = get_int(&step, o, "stepping", e);
	if (rc)
		return rc;
	c->family = fam <= 0x7fffffff ? (int)fam : -1;
	c->model = mod <= 0x7fffffff ? (int)mod : -1;
	c->stepping = step <= 0x7fffffff ? (int)step : -1;
	const json_t *flags = json_object_get(o, "flags");
	size_t n = json_array_size(flags);
	if (!n)
		return 0;
	if (!(c->flags = xcalloc(n, sizeof(char *))))
		return err_oom(e);
	c->cap_flags = n;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(flags, i));
		if (!s)
			continue;
		if (!(c->flags[c->nr_flags] = xstrdup(s)))
			return err_oom(e);
		c->nr_flags++;
	}
	return 0;
}

static int mask_from_json(struct allocation *a, const json_t *mask, struct err *e)
{
	if (!mask || json_is_null(mask))
		return 0;
	if (!json_is_array(mask))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
			       "machine.allocation.affinity_mask: expected an array or null");
	size_t n = json_array_size(mask);
	if (!(a->affinity_mask = xcalloc(n ? n : 1, sizeof(int))))
		return err_oom(e);
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_array_get(mask, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 0x7fffffff)
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				       "machine.allocation.affinity_mask[%zu]: expected a CPU id", i);
		a->affinity_mask[i] = (int)json_integer_value(v);
	}
	a->nr_affinity = n;
	a->has_affinity = true;
	return 0;
}

static int alloc_from_json(struct allocation *a, const json_t *o, struct err *e)
{
	if (!json_is_object(o))
		return 0;
	int rc = get_int(&a->visible_cores, o, "visible_cores", e);
	if (!rc)
		rc = get_int(&a->memory_limit_bytes, o, "memory_limit_bytes", e);
	if (!rc)
		rc = get_str(&a->cgroup, o, "cgroup", e);
	if (!rc)
		rc = mask_from_json(a, json_object_get(o, "affinity_mask"), e);
	if (rc)
		return rc;
	const json_t *q = json_object_get(o, "cpu_quota");
	if (json_is_number(q)) {
		a->cpu_quota = json_number_value(q);
		a->has_cpu_quota = true;
	} else if (q && !json_is_null(q)) {
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
			       "machine.allocation.cpu_quota: expected a number or null");
	}
	return 0;
}

static int ceilings_from_json(struct machine *m, const json_t *arr, bool costs, struct err *e)
{
	const char *key = costs ? "costs" : "ceilings";
	size_t i;
	const json_t *c;
	json_array_foreach(arr, i, c) {
		struct ceiling cl = {0};
		const json_t *v = json_object_get(c, "value");
		cl.name = (char *)json_string_value(json_object_get(c, "name"));
		cl.unit = (char *)json_string_value(json_object_get(c, "unit"));
		cl.reason = (char *)json_string_value(json_object_get(c, "reason"));
		if (!cl.name || !cl.unit)
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				       "machine.%s[%zu]: expected name and unit strings", key, i);
		cl.value = json_is_number(v) ? json_number_value(v) : NAN;
		if (quality__parse(json_string_value(json_object_get(c, "quality")), &cl.quality))
			cl.quality = QUALITY_UNAVAILABLE;
		if (!json_is_number(v))
			cl.quality = QUALITY_UNAVAILABLE;
		if (costs ? machine__put_cost(m, &cl) : machine__add_ceiling(m, &cl))
			return err_oom(e);
	}
	return 0;
}

int machine__from_json(struct machine *m, const json_t *j, struct err *e)
{
	machine__release(m);
	if (!json_is_object(j))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "machine: expected an object");
	int rc = get_str(&m->system, j, "system", e);
	if (!rc)
		rc = get_str(&m->kernel, j, "kernel", e);
	if (!rc)
		rc = get_str(&m->architecture, j, "architecture", e);
	if (!rc)
		rc = get_str(&m->cpu_model, j, "cpu_model", e);
	if (!rc)
		rc = get_str(&m->hostname, j, "hostname", e);
	if (!rc)
		rc = get_int(&m->logical_cores, j, "logical_cores", e);
	if (!rc)
		rc = cpu_from_json(&m->cpu, json_object_get(j, "cpu"), e);
	if (!rc)
		rc = alloc_from_json(&m->alloc, json_object_get(j, "allocation"), e);
	if (!rc)
		rc = ceilings_from_json(m, json_object_get(j, "ceilings"), false, e);
	if (!rc)
		rc = ceilings_from_json(m, json_object_get(j, "costs"), true, e);
	if (rc)
		machine__release(m);
	else
		m->replayed = json_is_true(json_object_get(j, "recorded"));
	return rc;
}

json_t *machine__recording_meta(const struct machine *m)
{
	bool ok = true;
	json_t *meta = json_object(), *plat = json_object();
	if (!meta || !plat) {
		json_decref(meta);
		json_decref(plat);
		return NULL;
	}
	put(plat, "system", str_or_null(m->system), &ok);
	put(plat, "kernel", str_or_null(m->kernel), &ok);
	put(plat, "architecture", str_or_null(m->architecture), &ok);
	put(meta, "platform", plat, &ok);
	put(meta, "cpu_model", str_or_null(m->cpu_model), &ok);
	if (m->cpuinfo_text)
		put(meta, "cpuinfo", json_string(m->cpuinfo_text), &ok);
	put(meta, "machine", machine__to_json(m), &ok);
	if (!ok)
		json_decref(meta);
	return ok ? meta : NULL;
}
