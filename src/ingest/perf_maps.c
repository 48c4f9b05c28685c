// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/perf_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/hashtab.h"

struct pid_maps {
	int64_t pid;
	uint64_t hash;
	struct perf_map *v;
	size_t n, cap;
	size_t last; /* cached hit index + 1, 0 none */
};

struct perf_maps {
	struct strtab paths;
	struct pid_maps *pids;
	size_t nr_pids, cap_pids;
	struct oatab t;
	size_t last_pid; /* index + 1 of the last looked-up pid, 0 none */
	size_t nr_maps;
};

struct perf_maps *perf_maps__new(void)
{
	struct perf_maps *m = xcalloc(1, sizeof(*m));
	if (m)
		m->paths.last = -1;
	return m;
}

void perf_maps__free(struct perf_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_pids; i++)
		xfree(m->pids[i].v);
	xfree(m->pids);
	oatab__release(&m->t);
	strtab__release(&m->paths);
	xfree(m);
}

static struct pid_maps *pid_get(struct perf_maps *m, int64_t pid, bool create)
{
	if (m->last_pid && m->pids[m->last_pid - 1].pid == pid)
		return &m->pids[m->last_pid - 1];
	uint64_t h = mix64((uint64_t)pid);
	for (size_t pos = h & m->t.mask; m->t.slot && m->t.slot[pos]; pos = (pos + 1) & m->t.mask)
		if (m->pids[m->t.slot[pos] - 1].pid == pid) {
			m->last_pid = m->t.slot[pos];
			return &m->pids[m->t.slot[pos] - 1];
		}
	if (!create)
		return NULL;
	if (xgrow((void **)&m->pids, &m->cap_pids, m->nr_pids + 1, sizeof(*m->pids)))
		return NULL;
	m->pids[m->nr_pids] = (struct pid_maps){.pid = pid, .hash = h};
	m->nr_pids++;
	if (oatab__insert(&m->t, h, (uint32_t)m->nr_pids, &m->pids[0].hash, sizeof(*m->pids))) {
		m->nr_pids--;
		return NULL;
	}
	m->last_pid = m->nr_pids;
	return &m->pids[m->nr_pids - 1];
}

static int push(struct pid_maps *pm, const struct perf_map *src)
{
	if (xgrow((void **)&pm->v, &pm->cap, pm->n + 1, sizeof(*pm->v)))
		return -ENOMEM;
	uint64_t t = src->time;
	struct perf_map nm = *src;
	/* Overlapping maps supersede each other in time order, whatever order
	 * the records arrive in (perf.data is only sorted per round). */
	for (size_t i = 0; i < pm->n; i++) {
		struct perf_map *o = &pm->v[i];
		if (!(o->start < nm.end && nm.start < o->end))
			continue;
		if (o->time <= t && o->superseded > t)
			o->superseded = t;
		else if (o->time > t && nm.superseded > o->time)
			nm.superseded = o->time;
	}
	pm->v[pm->n++] = nm;
	pm->last = 0;
	return 0;
}

int perf_maps__add(struct perf_maps *m, int64_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, uint64_t time, const char *path, size_t path_len)
{
	int64_t id = strtab__intern(&m->paths, path, path_len, NULL);
	if (id < 0)
		return -ENOMEM;
	struct pid_maps *pm = pid_get(m, pid, true);
	if (!pm)
		return -ENOMEM;
	uint64_t end = start + len < start ? UINT64_MAX : start + len;
	struct perf_map map = {.start = start, .end = end, .pgoff = pgoff, .time = time,
			       .superseded = UINT64_MAX, .path = m->paths.s[id],
			       .path_len = path_len};
	int rc = push(pm, &map);
	if (!rc)
		m->nr_maps++;
	return rc;
}

int perf_maps__fork(struct perf_maps *m, int64_t child, int64_t parent, uint64_t time)
{
	if (child == parent)
		return 0;
	struct pid_maps *pp = pid_get(m, parent, false);
	if (!pp || pp->n == 0)
		return 0;
	size_t idx = (size_t)(pp - m->pids);
	struct pid_maps *pc = pid_get(m, child, true);
	if (!pc)
		return -ENOMEM;
	pp = &m->pids[idx]; /* pid_get may have moved the array */
	for (size_t i = 0; i < pp->n; i++) {
		struct perf_map c = pp->v[i];
		if (c.time > time || c.superseded <= time)
			continue;
		c.superseded = UINT64_MAX;
		if (push(pc, &c))
			return -ENOMEM;
		m->nr_maps++;
	}
	return 0;
}

const struct perf_map *perf_maps__find(struct perf_maps *m, int64_t pid, uint64_t ip,
				       uint64_t time)
{
	struct pid_maps *pm = pid_get(m, pid, false);
	if (!pm || pm->n == 0)
		return NULL;
	if (pm->last) {
		const struct perf_map *c = &pm->v[pm->last - 1];
		if (ip >= c->start && ip < c->end && time >= c->time && time < c->superseded)
			return c;
	}
	size_t fallback = 0;
	for (size_t i = pm->n; i-- > 0;) {
		const struct perf_map *c = &pm->v[i];
		if (ip < c->start || ip >= c->end)
			continue;
		if (c->time <= time) {
			pm->last = i + 1;
			return c;
		}
		fallback = i + 1;
	}
	return fallback ? &pm->v[fallback - 1] : NULL;
}

bool perf_maps__maps_offset(struct perf_maps *m, int64_t pid, const char *path, size_t len,
			    uint64_t off)
{
	struct pid_maps *pm = pid_get(m, pid, false);
	for (size_t i = 0; pm && i < pm->n; i++) {
		const struct perf_map *c = &pm->v[i];
		if (c->path_len == len && !memcmp(c->path, path, len) && off >= c->pgoff &&
		    off - c->pgoff < c->end - c->start)
			return true;
	}
	return false;
}

static int cmp_start(const void *x, const void *y)
{
	const struct perf_map *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

bool perf_maps__kernel_offset(const struct perf_map *m, uint64_t ip, uint64_t *off)
{
	static const char k[] = "[kernel.kallsyms]";
	if (!m || m->path_len < sizeof(k) - 1 || memcmp(m->path, k, sizeof(k) - 1) != 0)
		return false;
	uint64_t text = m->pgoff ? m->pgoff : m->start;
	if (ip < text)
		return false;
	*off = ip - text;
	return true;
}

void perf_maps__fixup_kernel(struct perf_maps *m)
{
	struct pid_maps *pm = pid_get(m, PERF_MAPS_KERNEL_PID, false);
	if (!pm || pm->n == 0)
		return;
	qsort(pm->v, pm->n, sizeof(*pm->v), cmp_start);
	for (size_t i = 0; i < pm->n; i++) {
		pm->v[i].end = i + 1 < pm->n ? pm->v[i + 1].start : UINT64_MAX;
		pm->v[i].superseded = UINT64_MAX;
		pm->v[i].time = 0;
	}
	pm->last = 0;
}
