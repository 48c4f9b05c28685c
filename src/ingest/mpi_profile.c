// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/mpi_profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/rank_list.h"

#define MAX_FIELDS 8

/* One line split on tabs; fields point into buf. */
struct rec {
	char buf[4608];
	const char *f[MAX_FIELDS];
	int n;
};

static bool split(const char *line, size_t len, struct rec *r)
{
	if (len >= sizeof(r->buf))
		return false;
	memcpy(r->buf, line, len);
	r->buf[len] = '\0';
	r->n = 0;
	char *p = r->buf;
	for (;;) {
		if (r->n == MAX_FIELDS)
			return false;
		r->f[r->n++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return true;
}

/* A non-negative decimal (or 0x hex when hex) that fits int64. */
static bool num(const char *s, bool hex, int64_t *out)
{
	uint64_t v = 0;
	int base = 10;
	if (hex) {
		if (s[0] != '0' || s[1] != 'x')
			return false;
		s += 2;
		base = 16;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
			: base == 16 && *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
		if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!hex && v > INT64_MAX)
		return false;
	*out = (int64_t)v;
	return true;
}

static bool nums(const struct rec *r, int from, int64_t *out, int n)
{
	for (int i = 0; i < n; i++)
		if (!num(r->f[from + i], false, &out[i]))
			return false;
	return true;
}

/* A signed int for ranks and peers: -1 or a non-negative number. */
static bool small_int(const char *s, int *out)
{
	int64_t v = 0;
	if (strcmp(s, "-1") == 0) {
		*out = -1;
		return true;
	}
	if (!num(s, false, &v) || v > INT32_MAX)
		return false;
	*out = (int)v;
	return true;
}

static int add_fn(struct mpi_profile *p, const struct rec *r)
{
	int64_t v[3];
	if (r->n != 5 || !*r->f[1] || !nums(r, 2, v, 3))
		return -EINVAL;
	if (xgrow((void **)&p->fns, &p->cap_fns, p->nr_fns + 1, sizeof(*p->fns)) < 0)
		return -ENOMEM;
	struct mpi_prof_fn *f = &p->fns[p->nr_fns];
	if (!(f->name = xstrdup(r->f[1])))
		return -ENOMEM;
	f->calls = v[0], f->time_ns = v[1], f->bytes = v[2];
	p->nr_fns++;
	return 0;
}

static int add_site(struct mpi_profile *p, const struct rec *r)
{
	int64_t v[3], addr = 0;
	if (r->n != 7 || !*r->f[1] || !*r->f[2] || !num(r->f[3], true, &addr) ||
	    !nums(r, 4, v, 3))
		return -EINVAL;
	if (xgrow((void **)&p->sites, &p->cap_sites, p->nr_sites + 1, sizeof(*p->sites)) < 0)
		return -ENOMEM;
	struct mpi_prof_site *s = &p->sites[p->nr_sites];
	s->name = xstrdup(r->f[1]);
	s->module = xstrdup(r->f[2]);
	if (!s->name || !s->module) {
		xfree(s->name);
		xfree(s->module);
		return -ENOMEM;
	}
	s->vaddr = (uint64_t)addr;
	s->calls = v[0], s->time_ns = v[1], s->bytes = v[2];
	p->nr_sites++;
	return 0;
}

static int add_event(struct mpi_profile *p, const struct rec *r)
{
	int64_t v[3];
	int peer = -1;
	if (r->n != 6 || !*r->f[1] || !nums(r, 2, v, 3) || !small_int(r->f[5], &peer))
		return -EINVAL;
	if (xgrow((void **)&p->events, &p->cap_events, p->nr_events + 1, sizeof(*p->events)) < 0)
		return -ENOMEM;
	struct mpi_prof_event *ev = &p->events[p->nr_events];
	if (!(ev->name = xstrdup(r->f[1])))
		return -ENOMEM;
	ev->start_ns = v[0], ev->duration_ns = v[1], ev->bytes = v[2], ev->peer = peer;
	p->nr_events++;
	return 0;
}

static int add_polled(struct mpi_profile *p, const struct rec *r)
{
	int64_t v[3];
	if (r->n != 5 || !*r->f[1] || !nums(r, 2, v, 3) || v[1] > v[0] || v[2] > v[0])
		return -EINVAL;
	if (xgrow((void **)&p->polled, &p->cap_polled, p->nr_polled + 1, sizeof(*p->polled)) < 0)
		return -ENOMEM;
	struct mpi_prof_polled *q = &p->polled[p->nr_polled];
	if (!(q->name = xstrdup(r->f[1])))
		return -ENOMEM;
	q->calls = v[0], q->timed = v[1], q->completed = v[2];
	p->nr_polled++;
	return 0;
}

static int add_peer(struct mpi_profile *p, const struct rec *r)
{
	int64_t v[3];
	int rank = -1;
	bool send = strcmp(r->f[1], "send") == 0, recv = strcmp(r->f[1], "recv") == 0;
	if (r->n != 6 || !(send || recv) || !small_int(r->f[2], &rank) || !nums(r, 3, v, 3))
		return -EINVAL;
	if (xgrow((void **)&p->peers, &p->cap_peers, p->nr_peers + 1, sizeof(*p->peers)) < 0)
		return -ENOMEM;
	p->peers[p->nr_peers++] = (struct mpi_prof_peer){.rank = rank, .recv = recv, .calls = v[0],
							 .time_ns = v[1], .bytes = v[2]};
	return 0;
}

static int add_ccomm(struct mpi_profile *p, const struct rec *r)
{
	int id = -1;
	int64_t size = 0;
	if (r->n != 4 || !small_int(r->f[1], &id) || id < 0 || !num(r->f[2], false, &size) ||
	    size <= 0 || size > MPI_PROFILE_MAX_COMM_SIZE || !*r->f[3])
		return -EINVAL;
	struct mpi_prof_ccomm *c = NULL;
	for (size_t i = 0; i < p->nr_ccomms && !c; i++)
		if (p->ccomms[i].id == id)
			c = &p->ccomms[i];
	if (c && c->size != (int)size)
		return -EINVAL;
	if (!c) {
		if (xgrow((void **)&p->ccomms, &p->cap_ccomms, p->nr_ccomms + 1, sizeof(*p->ccomms)) < 0)
			return -ENOMEM;
		c = &p->ccomms[p->nr_ccomms++];
		*c = (struct mpi_prof_ccomm){.id = id, .size = (int)size};
	}
	return rank_list_append(r->f[3], (size_t)size, &c->members, &c->nr, &c->cap);
}

static int add_coll(struct mpi_profile *p, const struct rec *r)
{
	int64_t v[3];
	int comm = -1, root = -1;
	if (r->n != 7 || !*r->f[1] || !small_int(r->f[2], &comm) || !small_int(r->f[3], &root) ||
	    !nums(r, 4, v, 3))
		return -EINVAL;
	if (xgrow((void **)&p->colls, &p->cap_colls, p->nr_colls + 1, sizeof(*p->colls)) < 0)
		return -ENOMEM;
	struct mpi_prof_coll *c = &p->colls[p->nr_colls];
	if (!(c->name = xstrdup(r->f[1])))
		return -ENOMEM;
	c->comm = comm, c->root = root, c->calls = v[0], c->time_ns = v[1], c->bytes = v[2];
	p->nr_colls++;
	return 0;
}

const struct mpi_prof_ccomm *mpi_profile_ccomm(const struct mpi_profile *p, int id)
{
	for (size_t i = 0; id >= 0 && i < p->nr_ccomms; i++)
		if (p->ccomms[i].id == id)
			return p->ccomms[i].nr == (size_t)p->ccomms[i].size ? &p->ccomms[i] : NULL;
	return NULL;
}

/* The header and scalar records. Returns 1 when the record is not one. */
static int scalar(struct mpi_profile *p, const struct rec *r)
{
	const char *k = r->f[0];
	int64_t v = 0;
	char *text = strcmp(k, "state") == 0 ? p->state
		     : strcmp(k, "library") == 0 ? p->library
		     : strcmp(k, "node") == 0 ? p->node : NULL;
	if (text) {
		if (r->n != 2)
			return -EINVAL;
		snprintf(text, k[0] == 's' ? sizeof(p->state) : sizeof(p->library), "%s", r->f[1]);
		return 0;
	}
	if (strcmp(k, "rank") == 0 || strcmp(k, "world") == 0)
		return r->n == 2 && small_int(r->f[1], k[0] == 'r' ? &p->rank : &p->world)
			       ? 0 : -EINVAL;
	int64_t *dst = strcmp(k, "pid") == 0 ? &p->pid
		       : strcmp(k, "init_ns") == 0 ? &p->init_ns
		       : strcmp(k, "wall_ns") == 0 ? &p->wall_ns : NULL;
	if (!dst)
		return 1;
	if (r->n != 2 || !num(r->f[1], false, &v))
		return -EINVAL;
	*dst = v;
	return 0;
}

static int record(struct mpi_profile *p, const struct rec *r)
{
	const char *k = r->f[0];
	if (strcmp(k, "function") == 0)
		return add_fn(p, r);
	if (strcmp(k, "site") == 0)
		return add_site(p, r);
	if (strcmp(k, "event") == 0)
		return add_event(p, r);
	if (strcmp(k, "polled") == 0)
		return add_polled(p, r);
	if (strcmp(k, "probe_cost_ps") == 0) {
		int64_t v[2];
		if (r->n != 3 || !nums(r, 1, v, 2))
			return -EINVAL;
		p->cost_fast_ps = v[0], p->cost_full_ps = v[1];
		return 0;
	}
	if (strcmp(k, "skipped") == 0) {
		if (r->n != 2 || !*r->f[1])
			return -EINVAL;
		if (xgrow((void **)&p->skipped, &p->cap_skipped, p->nr_skipped + 1, sizeof(char *)) < 0 ||
		    !(p->skipped[p->nr_skipped] = xstrdup(r->f[1])))
			return -ENOMEM;
		p->nr_skipped++;
		return 0;
	}
	if (strcmp(k, "peer") == 0)
		return add_peer(p, r);
	if (strcmp(k, "ccomm") == 0)
		return add_ccomm(p, r);
	if (strcmp(k, "coll") == 0)
		return add_coll(p, r);
	if (strcmp(k, "dropped") == 0) {
		int64_t v[2];
		if (r->n != 3 || !nums(r, 1, v, 2))
			return -EINVAL;
		p->dropped_sites = v[0], p->dropped_events = v[1];
		return 0;
	}
	if (strcmp(k, "end") == 0) {
		p->complete = true;
		return 0;
	}
	int rc = scalar(p, r);
	return rc == 1 ? 0 : rc; /* an unknown record: skipped */
}

static int header(struct mpi_profile *p, const struct rec *r, struct err *e)
{
	int64_t v = 0;
	if (r->n != 2 || strcmp(r->f[0], "nunatak-mpi") != 0 || !num(r->f[1], false, &v))
		return err_set(e, -EINVAL, ERR_MPI_PARSE,
			       "line 1: expected `nunatak-mpi<TAB>version`, not an MPI profile");
	if (v > MPI_PROFILE_VERSION)
		return err_set(e, -ENOTSUP, ERR_MPI_VERSION,
			       "MPI profile version %lld is newer than the supported %d; upgrade "
			       "nunatak to read it", (long long)v, MPI_PROFILE_VERSION);
	p->version = (int)v;
	return 0;
}

int mpi_profile_parse(const char *text, size_t len, struct mpi_profile *out, struct err *e)
{
	*out = (struct mpi_profile){.rank = -1, .world = -1, .pid = -1, .cost_fast_ps = -1,
				    .cost_full_ps = -1};
	struct rec *r = xmalloc(sizeof(*r));
	if (!r)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	size_t pos = 0;
	int rc = 0;
	for (size_t line = 1; pos < len && rc == 0 && !out->complete; line++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		if (!nl) /* a last line cut by a writer that died mid-way */
			break;
		if (!split(text + pos, n, r) || memchr(text + pos, '\0', n))
			rc = err_set(e, -EINVAL, ERR_MPI_PARSE, "line %zu: a record too long or "
				     "holding a NUL byte", line);
		else if (line == 1)
			rc = header(out, r, e);
		else if ((rc = record(out, r)) == -EINVAL)
			err_set(e, rc, ERR_MPI_PARSE, "line %zu: malformed `%.32s` record", line,
				r->f[0]);
		else if (rc == -ENOMEM)
			err_set(e, rc, ERR_OOM, "out of memory");
		pos += n + 1;
	}
	if (rc == 0 && out->version == 0)
		rc = err_set(e, -EINVAL, ERR_MPI_PARSE, "line 1: empty file, not an MPI profile");
	xfree(r);
	return rc;
}

void mpi_profile__release(struct mpi_profile *p)
{
	for (size_t i = 0; i < p->nr_fns; i++)
		xfree(p->fns[i].name);
	for (size_t i = 0; i < p->nr_sites; i++) {
		xfree(p->sites[i].name);
		xfree(p->sites[i].module);
	}
	for (size_t i = 0; i < p->nr_events; i++)
		xfree(p->events[i].name);
	for (size_t i = 0; i < p->nr_polled; i++)
		xfree(p->polled[i].name);
	xfree(p->polled);
	for (size_t i = 0; i < p->nr_skipped; i++)
		xfree(p->skipped[i]);
	xfree(p->skipped);
	xfree(p->fns);
	xfree(p->sites);
	xfree(p->events);
	xfree(p->peers);
	for (size_t i = 0; i < p->nr_ccomms; i++)
		xfree(p->ccomms[i].members);
	xfree(p->ccomms);
	for (size_t i = 0; i < p->nr_colls; i++)
		xfree(p->colls[i].name);
	xfree(p->colls);
	*p = (struct mpi_profile){0};
}
