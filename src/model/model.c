// SPDX-License-Identifier: BSD-3-Clause
#include "model/model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/text.h"

static const char *const quality_names[] = {"measured", "estimated", "unavailable"};
static const char *const resolution_names[] = {"line", "function", "symbol", "unresolved"};

const char *quality__name(enum quality q)
{
	return (unsigned)q < 3 ? quality_names[q] : "unavailable";
}

int quality__parse(const char *s, enum quality *q)
{
	for (int i = 0; i < 3; i++)
		if (s && strcmp(s, quality_names[i]) == 0) {
			*q = (enum quality)i;
			return 0;
		}
	return -EINVAL;
}

const char *resolution__name(enum resolution r)
{
	return (unsigned)r < 4 ? resolution_names[r] : "unresolved";
}

int resolution__parse(const char *s, enum resolution *r)
{
	for (int i = 0; i < 4; i++)
		if (s && strcmp(s, resolution_names[i]) == 0) {
			*r = (enum resolution)i;
			return 0;
		}
	return -EINVAL;
}

static int streq_null(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

int degradations__add(struct degradations *d, const char *name, const char *message,
		      const char *remedy)
{
	for (size_t i = 0; i < d->n; i++)
		if (streq_null(d->v[i].name, name) && streq_null(d->v[i].message, message))
			return 0;
	if (xgrow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)))
		return -ENOMEM;
	struct degradation *g = &d->v[d->n];
	g->name = xstrdup(name ? name : "");
	g->message = xstrdup(message ? message : "");
	g->remedy = xstrdup(remedy ? remedy : "");
	if (!g->name || !g->message || !g->remedy) {
		xfree(g->name);
		xfree(g->message);
		xfree(g->remedy);
		return -ENOMEM;
	}
	d->n++;
	return 1;
}

void degradations__release(struct degradations *d)
{
	for (size_t i = 0; i < d->n; i++) {
		xfree(d->v[i].name);
		xfree(d->v[i].message);
		xfree(d->v[i].remedy);
	}
	xfree(d->v);
	memset(d, 0, sizeof(*d));
}

void pivot__init(struct pivot *p)
{
	memset(p, 0, sizeof(*p));
}

#define DUP(field)                                        \
	do {                                              \
		if (src->field) {                         \
			dst->field = xstrdup(src->field); \
			if (!dst->field)                  \
				goto oom;                 \
		}                                         \
	} while (0)

/* Copies *src to the end of p->arr, then runs `body` (which duplicates the
 * strings with DUP, jumping to oom on failure): the partial copy is released
 * and not counted. */
#define APPEND(arr, release, body)                                                       \
	do {                                                                             \
		if (xgrow((void **)&p->arr, &p->cap_##arr, p->nr_##arr + 1, sizeof(*p->arr))) \
			return -ENOMEM;                                                  \
		__typeof__(p->arr) dst = &p->arr[p->nr_##arr];                           \
		*dst = *src;                                                             \
		body;                                                                    \
		return (int64_t)p->nr_##arr++;                                           \
	oom:                                                                             \
		release(dst);                                                            \
		return -ENOMEM;                                                          \
	} while (0)

static void locus__release(struct locus *l)
{
	xfree(l->node);
	xfree(l->name);
}
static void hotspot__release(struct hotspot *h)
{
	xfree(h->module);
	xfree(h->build_id);
	xfree(h->name);
	xfree(h->source_file);
}
static void measurement__release(struct measurement *m)
{
	xfree(m->counter);
	xfree(m->unit);
	xfree(m->reason);
}
static void address__release(struct address *a) { xfree(a->counter); }
static void frame__release(struct frame *f)
{
	xfree(f->function);
	xfree(f->file);
}
static void extract__release(struct extract *x)
{
	xfree(x->file);
	xfree(x->resolved_path);
	xfree(x->text);
	xfree(x->reason);
}
static void stack__release(struct stack *s)
{
	xfree(s->counter);
	xfree(s->unit);
}
static void stack_frame__release(struct stack_frame *f)
{
	xfree(f->module);
	xfree(f->function);
}
static void region_stat__release(struct region_stat *r)
{
	xfree(r->path);
	xfree(r->name);
}

static void region_sample__release(struct region_sample *r)
{
	xfree(r->region_path);
	xfree(r->counter);
}

static void mpi_call__release(struct mpi_call *c)
{
	xfree(c->name);
}

static void mpi_site__release(struct mpi_site *c)
{
	xfree(c->name);
	xfree(c->module);
	xfree(c->function);
	xfree(c->file);
}

static void mpi_peer__release(struct mpi_peer *c)
{
	xfree(c->direction);
}

static void mpi_collective__release(struct mpi_collective *c)
{
	xfree(c->name);
	xfree(c->members);
}

static void omp_site__release(struct omp_site *c)
{
	xfree(c->module);
	xfree(c->function);
	xfree(c->file);
}

static void event__release(struct event *v)
{
	xfree(v->kind);
	xfree(v->name);
	xfree(v->attributes);
}

int64_t pivot__add_locus(struct pivot *p, const struct locus *src)
{
	APPEND(loci, locus__release, {
		dst->node = dst->name = NULL;
		DUP(node);
		DUP(name);
	});
}

int locus__set_name(struct locus *l, const char *comm, size_t len)
{
	char raw[4 * 16 + 1];
	size_t w = 0;
	/* a comm holds no NUL (a stray one ends it, as the kernel's does); the
	 * line breaks text_escape_controls keeps are escaped too: a name is one line */
	for (size_t i = 0; i < len && i < 16 && comm[i]; i++) {
		if (comm[i] == '\n' || comm[i] == '\t')
			w += (size_t)snprintf(raw + w, sizeof(raw) - w, "\\x%02x", comm[i]);
		else
			raw[w++] = comm[i];
	}
	raw[w] = 0;
	char *n = text_escape_controls(raw);
	if (!n)
		return -ENOMEM;
	xfree(l->name);
	l->name = n;
	return 0;
}

int64_t pivot__intern_locus(struct pivot *p, const char *node, int rank, int64_t thread)
{
	for (size_t i = 0; i < p->nr_loci; i++) {
		const struct locus *l = &p->loci[i];
		if (l->rank == rank && l->thread == thread && streq_null(l->node, node))
			return (int64_t)i;
	}
	struct locus l = {.node = (char *)node, .rank = rank, .thread = thread};
	return pivot__add_locus(p, &l);
}

int64_t pivot__add_hotspot(struct pivot *p, const struct hotspot *src)
{
	APPEND(hotspots, hotspot__release, {
		dst->module = dst->build_id = dst->name = dst->source_file = NULL;
		DUP(module);
		DUP(build_id);
		DUP(name);
		DUP(source_file);
	});
}

int64_t pivot__add_measurement(struct pivot *p, const struct measurement *src)
{
	APPEND(measurements, measurement__release, {
		dst->counter = dst->unit = dst->reason = NULL;
		DUP(counter);
		DUP(unit);
		DUP(reason);
	});
}

int64_t pivot__add_address(struct pivot *p, const struct address *src)
{
	APPEND(addresses, address__release, {
		dst->counter = NULL;
		DUP(counter);
	});
}

int64_t pivot__add_frame(struct pivot *p, const struct frame *src)
{
	APPEND(frames, frame__release, {
		dst->function = dst->file = NULL;
		DUP(function);
		DUP(file);
	});
}

int64_t pivot__add_extract(struct pivot *p, const struct extract *src)
{
	APPEND(extracts, extract__release, {
		dst->file = dst->resolved_path = dst->text = dst->reason = NULL;
		DUP(file);
		DUP(resolved_path);
		DUP(text);
		DUP(reason);
	});
}

int64_t pivot__add_stack(struct pivot *p, const struct stack *src)
{
	APPEND(stacks, stack__release, {
		dst->counter = dst->unit = NULL;
		DUP(counter);
		DUP(unit);
	});
}

int64_t pivot__add_stack_frame(struct pivot *p, const struct stack_frame *src)
{
	APPEND(stack_frames, stack_frame__release, {
		dst->module = dst->function = NULL;
		DUP(module);
		DUP(function);
	});
}

int64_t pivot__add_region_stat(struct pivot *p, const struct region_stat *src)
{
	APPEND(region_stats, region_stat__release, {
		dst->path = dst->name = NULL;
		DUP(path);
		DUP(name);
	});
}

int64_t pivot__add_region_sample(struct pivot *p, const struct region_sample *src)
{
	APPEND(region_samples, region_sample__release, {
		dst->region_path = dst->counter = NULL;
		DUP(region_path);
		DUP(counter);
	});
}

int64_t pivot__add_mpi_call(struct pivot *p, const struct mpi_call *src)
{
	APPEND(mpi_calls, mpi_call__release, {
		dst->name = NULL;
		DUP(name);
	});
}

int64_t pivot__add_mpi_site(struct pivot *p, const struct mpi_site *src)
{
	APPEND(mpi_sites, mpi_site__release, {
		dst->name = dst->module = dst->function = dst->file = NULL;
		DUP(name);
		DUP(module);
		DUP(function);
		DUP(file);
	});
}

int64_t pivot__add_event(struct pivot *p, const struct event *src)
{
	APPEND(events, event__release, {
		dst->kind = dst->name = dst->attributes = NULL;
		DUP(kind);
		DUP(name);
		DUP(attributes);
	});
}

int64_t pivot__add_mpi_peer(struct pivot *p, const struct mpi_peer *src)
{
	APPEND(mpi_peers, mpi_peer__release, {
		dst->direction = NULL;
		DUP(direction);
	});
}

int64_t pivot__add_mpi_collective(struct pivot *p, const struct mpi_collective *src)
{
	APPEND(mpi_collectives, mpi_collective__release, {
		dst->name = dst->members = NULL;
		DUP(name);
		DUP(members);
	});
}

int64_t pivot__add_omp_site(struct pivot *p, const struct omp_site *src)
{
	APPEND(omp_sites, omp_site__release, {
		dst->module = dst->function = dst->file = NULL;
		DUP(module);
		DUP(function);
		DUP(file);
	});
}

#define RELEASE_ALL(arr, fn)                            \
	do {                                            \
		for (size_t i = 0; i < p->nr_##arr; i++) \
			fn(&p->arr[i]);                 \
		xfree(p->arr);                          \
	} while (0)

void pivot__release(struct pivot *p)
{
	RELEASE_ALL(hotspots, hotspot__release);
	RELEASE_ALL(loci, locus__release);
	RELEASE_ALL(measurements, measurement__release);
	RELEASE_ALL(addresses, address__release);
	RELEASE_ALL(frames, frame__release);
	RELEASE_ALL(extracts, extract__release);
	RELEASE_ALL(stacks, stack__release);
	RELEASE_ALL(stack_frames, stack_frame__release);
	RELEASE_ALL(region_stats, region_stat__release);
	RELEASE_ALL(region_samples, region_sample__release);
	RELEASE_ALL(mpi_calls, mpi_call__release);
	RELEASE_ALL(mpi_sites, mpi_site__release);
	RELEASE_ALL(events, event__release);
	RELEASE_ALL(mpi_peers, mpi_peer__release);
	RELEASE_ALL(omp_sites, omp_site__release);
	RELEASE_ALL(mpi_collectives, mpi_collective__release);
	memset(p, 0, sizeof(*p));
}

char *hotspot__display_name(const struct hotspot *h)
{
	if (h->name) {
		/* A symbol may hold any byte but NUL: no control character (an
		 * escape sequence would drive the user's terminal) is shown. */
		char *s = xstrdup(h->name);
		for (char *c = s; c && *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		return s;
	}
	const char *mod = h->module ? h->module : "[unknown]";
	const char *base = strrchr(mod, '/');
	base = base ? base + 1 : mod;
	if (!h->has_offset)
		return xstrdup(base);
	return xasprintf("%s+0x%" PRIx64, base, h->offset);
}

const char *pivot__time_base(const struct pivot *p)
{
	static const char *const order[] = {"task-clock", "cpu-clock", "cycles"};
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < p->nr_measurements; i++)
			if (p->measurements[i].hotspot != PIVOT_NONE && p->measurements[i].counter &&
			    strcmp(p->measurements[i].counter, order[k]) == 0)
				return order[k];
	return NULL;
}
