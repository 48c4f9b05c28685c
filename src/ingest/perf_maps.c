// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/perf_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/hashtab.h"

/* v[0 .. nr_sorted) by start, for lookups in O(log n) (a LAMMPS rank maps
 * ~150 modules, and a call chain's frames hop between them: the linear scan
 * was the largest part of an MPI Run's ingestion, issue 27). */
struct by_start {
	uint64_t start, end;
	uint64_t max_end; /* the largest end of this entry and those before it */
	size_t idx;       /* into v */
};

struct pid_maps {
	int64_t pid;
	uint64_t hash;
	struct perf_map *v;
	size_t n, cap;
	size_t last; /* cached hit index + 1, 0 none */
	struct by_start *sorted; /* v[0 .. nr_sorted) by start; v[nr_sorted ..) scanned */
	size_t nr_sorted, cap_sorted;
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
	for (size_t i = 0; i < m->nr_pids; i++) {
		xfree(m->pids[i].v);
		xfree(m->pids[i].sorted);
	}
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

static int cmp_by_start(const void *x, const void *y)
{
	const struct by_start *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Sorts every map of pm by start again. -ENOMEM leaves the old index. */
static int index_maps(struct pid_maps *pm)
{
	if (xgrow((void **)&pm->sorted, &pm->cap_sorted, pm->n, sizeof(*pm->sorted)))
		return -ENOMEM;
	for (size_t i = 0; i < pm->n; i++)
		pm->sorted[i] = (struct by_start){.start = pm->v[i].start, .end = pm->v[i].end,
						  .idx = i};
	qsort(pm->sorted, pm->n, sizeof(*pm->sorted), cmp_by_start);
	for (size_t i = 0; i < pm->n; i++)
		pm->sorted[i].max_end = i && pm->sorted[i - 1].max_end > pm->sorted[i].end
						? pm->sorted[i - 1].max_end
						: pm->sorted[i].end;
	pm->nr_sorted = pm->n;
	return 0;
}

/* Among the maps covering ip, the latest one (highest index) mapped at or
 * before time; else the earliest covering one (lowest index), as a scan of
 * every map from the newest would find. *hit: whether it is the former. */
static size_t find_covering(const struct pid_maps *pm, uint64_t ip, uint64_t time, bool *hit)
{
	size_t best = 0, fallback = 0; /* index + 1, 0 none */
	/* the maps added since the index was built: the newest, scanned */
	for (size_t i = pm->n; i-- > pm->nr_sorted;) {
		const struct perf_map *c = &pm->v[i];
		if (ip < c->start || ip >= c->end)
			continue;
		if (c->time <= time) {
			*hit = true;
			return i + 1;
		}
		fallback = i + 1;
	}
	/* the last entry starting at or before ip, then back while an earlier
	 * one may still reach past ip */
	size_t lo = 0, hi = pm->nr_sorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pm->sorted[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > 0 && pm->sorted[j].max_end > ip;) {
		const struct by_start *b = &pm->sorted[j];
		if (b->end <= ip)
			continue;
		if (pm->v[b->idx].time <= time) {
			if (b->idx + 1 > best)
				best = b->idx + 1;
		} else if (!fallback || b->idx + 1 < fallback) {
			fallback = b->idx + 1;
		}
	}
	*hit = best != 0;
	return best ? best : fallback;
}

const struct perf_map *perf_maps__find(struct perf_maps *m, int64_t pid, uint64_t ip,
				       uint64_t time)
{
	/* pid_get's one-entry cache, inline: every sample and frame asks */
	struct pid_maps *pm = m->last_pid && m->pids[m->last_pid - 1].pid == pid
				      ? &m->pids[m->last_pid - 1]
				      : pid_get(m, pid, false);
	if (!pm || pm->n == 0)
		return NULL;
	if (pm->last) {
		const struct perf_map *c = &pm->v[pm->last - 1];
		if (ip >= c->start && ip < c->end && time >= c->time && time < c->superseded)
			return c;
	}
	/* sorted again once the maps added since outnumber a quarter of those
	 * indexed (at least 8): O(n log n) in all, however adds and lookups
	 * alternate (perf script's text interleaves mmaps with samples) */
	size_t fresh = pm->n - pm->nr_sorted;
	if (fresh > 8 && fresh > pm->nr_sorted / 4)
		index_maps(pm); /* out of memory: the new maps stay scanned */
	bool hit = false;
	size_t found = find_covering(pm, ip, time, &hit);
	if (hit)
		pm->last = found;
	return found ? &pm->v[found - 1] : NULL;
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
	pm->nr_sorted = 0; /* moved and resized: indexed again on the next lookup */
}
