// SPDX-License-Identifier: BSD-3-Clause
// The Machine as data: construction, copy and release (the snapshot that
// fills it is machine/snapshot.c, its JSON form machine_json.c).
#include "model/machine.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"

void machine__init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	m->cpu.family = m->cpu.model = m->cpu.stepping = -1;
	m->logical_cores = -1;
	m->alloc.visible_cores = -1;
	m->alloc.memory_limit_bytes = -1;
}

void cpu_ident__release(struct cpu_ident *c)
{
	xfree(c->vendor);
	for (size_t i = 0; i < c->nr_flags; i++)
		xfree(c->flags[i]);
	xfree(c->flags);
	memset(c, 0, sizeof(*c));
	c->family = c->model = c->stepping = -1;
}

void allocation__release(struct allocation *a)
{
	xfree(a->affinity_mask);
	xfree(a->cgroup);
	memset(a, 0, sizeof(*a));
	a->visible_cores = -1;
	a->memory_limit_bytes = -1;
}

void ceiling__release(struct ceiling *c)
{
	xfree(c->name);
	xfree(c->unit);
	xfree(c->reason);
}

void machine__clear_ceilings(struct machine *m)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		ceiling__release(&m->ceilings[i]);
	m->nr_ceilings = 0;
}

void machine__release(struct machine *m)
{
	xfree(m->system);
	xfree(m->kernel);
	xfree(m->architecture);
	xfree(m->cpu_model);
	xfree(m->hostname);
	xfree(m->cpuinfo_text);
	cpu_ident__release(&m->cpu);
	allocation__release(&m->alloc);
	machine__clear_ceilings(m);
	xfree(m->ceilings);
	machine__clear_costs(m);
	xfree(m->costs);
	machine__init(m);
}

static int append(struct ceiling **v, size_t *nr, size_t *cap, const struct ceiling *c)
{
	if (xgrow((void **)v, cap, *nr + 1, sizeof(**v)))
		return -ENOMEM;
	struct ceiling *d = &(*v)[*nr];
	*d = *c;
	d->name = xstrdup(c->name ? c->name : "");
	d->unit = xstrdup(c->unit ? c->unit : "");
	d->reason = c->reason ? xstrdup(c->reason) : NULL;
	if (!d->name || !d->unit || (c->reason && !d->reason)) {
		ceiling__release(d);
		return -ENOMEM;
	}
	(*nr)++;
	return 0;
}

int machine__add_ceiling(struct machine *m, const struct ceiling *c)
{
	return append(&m->ceilings, &m->nr_ceilings, &m->cap_ceilings, c);
}

void machine__clear_costs(struct machine *m)
{
	for (size_t i = 0; i < m->nr_costs; i++)
		ceiling__release(&m->costs[i]);
	m->nr_costs = 0;
}

const struct ceiling *machine__cost(const struct machine *m, const char *name)
{
	for (size_t i = 0; name && i < m->nr_costs; i++)
		if (m->costs[i].name && !strcmp(m->costs[i].name, name))
			return &m->costs[i];
	return NULL;
}

int machine__put_cost(struct machine *m, const struct ceiling *c)
{
	size_t i = 0;
	while (i < m->nr_costs && strcmp(m->costs[i].name, c->name ? c->name : ""))
		i++;
	if (append(&m->costs, &m->nr_costs, &m->cap_costs, c))
		return -ENOMEM;
	if (i + 1 < m->nr_costs) { /* the same name was there: the copy replaces it */
		ceiling__release(&m->costs[i]);
		m->costs[i] = m->costs[--m->nr_costs];
	}
	return 0;
}

bool cpu_ident__has_flag(const struct cpu_ident *c, const char *flag)
{
	for (size_t i = 0; i < c->nr_flags; i++)
		if (strcmp(c->flags[i], flag) == 0)
			return true;
	return false;
}

bool machine__allocated_cores(const struct machine *m, double *cores)
{
	double c = m->alloc.visible_cores > 0 ? (double)m->alloc.visible_cores
		   : m->logical_cores > 0     ? (double)m->logical_cores
					      : -1;
	if (m->alloc.has_cpu_quota && (c < 0 || m->alloc.cpu_quota < c))
		c = m->alloc.cpu_quota;
	if (c < 0)
		return false;
	*cores = c;
	return true;
}

static int copy_str(char **dst, const char *src)
{
	*dst = src ? xstrdup(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

int machine__copy(struct machine *dst, const struct machine *src)
{
	machine__init(dst);
	dst->logical_cores = src->logical_cores;
	dst->replayed = src->replayed;
	dst->cpu.family = src->cpu.family;
	dst->cpu.model = src->cpu.model;
	dst->cpu.stepping = src->cpu.stepping;
	dst->alloc = src->alloc;
	dst->alloc.affinity_mask = NULL;
	dst->alloc.cgroup = NULL;
	int rc = copy_str(&dst->system, src->system) | copy_str(&dst->kernel, src->kernel) |
		 copy_str(&dst->architecture, src->architecture) |
		 copy_str(&dst->cpu_model, src->cpu_model) |
		 copy_str(&dst->hostname, src->hostname) |
		 copy_str(&dst->cpuinfo_text, src->cpuinfo_text) |
		 copy_str(&dst->cpu.vendor, src->cpu.vendor) |
		 copy_str(&dst->alloc.cgroup, src->alloc.cgroup);
	if (!rc && src->alloc.affinity_mask) {
		size_t n = src->alloc.nr_affinity;
		dst->alloc.affinity_mask = xcalloc(n ? n : 1, sizeof(int));
		if (dst->alloc.affinity_mask)
			memcpy(dst->alloc.affinity_mask, src->alloc.affinity_mask, n * sizeof(int));
		else
			rc = -ENOMEM;
	}
	for (size_t i = 0; !rc && i < src->cpu.nr_flags; i++) {
		if (xgrow((void **)&dst->cpu.flags, &dst->cpu.cap_flags, i + 1,
			  sizeof(char *)) ||
		    !(dst->cpu.flags[i] = xstrdup(src->cpu.flags[i])))
			rc = -ENOMEM;
		else
			dst->cpu.nr_flags++;
	}
	for (size_t i = 0; !rc && i < src->nr_ceilings; i++)
		rc = machine__add_ceiling(dst, &src->ceilings[i]);
	for (size_t i = 0; !rc && i < src->nr_costs; i++)
		rc = machine__put_cost(dst, &src->costs[i]);
	if (rc)
		machine__release(dst);
	return rc ? -ENOMEM : 0;
}
