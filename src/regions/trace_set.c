// SPDX-License-Identifier: BSD-3-Clause
#include "regions/trace_set.h"
#include "regions/region_filter.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safefs.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "modules/trace_h5.h"

struct pathlist {
	char **v;
	size_t n, cap;
};

static int pathlist__add_take(struct pathlist *l, char *p)
{
	if (!p || xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v))) {
		xfree(p);
		return -ENOMEM;
	}
	l->v[l->n++] = p;
	return 0;
}

static bool is_trace_name(const char *name)
{
	size_t n = strlen(name);
	if (n > 4 && strcmp(name + n - 4, ".spt") == 0)
		return true;
	return fnmatch("*_rank[0-9]*.h5", name, 0) == 0;
}

static int scan_dir(const char *dir, struct pathlist *l, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, -errno, ERR_TRACE_OPEN, "%s: cannot open directory: %s", dir,
			       strerror(errno));
	size_t before = l->n;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d)) != NULL && rc == 0)
		if (is_trace_name(de->d_name))
			rc = pathlist__add_take(l, xasprintf("%s/%s", dir, de->d_name));
	closedir(d);
	if (rc == 0 && l->n == before)
		rc = err_set(e, -ENOENT, ERR_TRACE_NONE,
			     "%s: no trace here: expected *.spt or *_rank<N>.h5 files (a "
			     "program linked with scope_profiler writes them at sp_finalize)",
			     dir);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An HDF5 build of the library writes <prefix>_rankN.h5 beside
 * <prefix>_rankN.spt with the same calls: read the .spt (it has everything)
 * and skip its twin instead of refusing a duplicate rank. */
static bool has_spt_twin(const struct pathlist *l, const char *h5)
{
	size_t n = strlen(h5);
	if (n <= 3 || strcmp(h5 + n - 3, ".h5") != 0)
		return false;
	for (size_t j = 0; j < l->n; j++)
		if (strlen(l->v[j]) == n + 1 && strncmp(l->v[j], h5, n - 3) == 0 &&
		    strcmp(l->v[j] + n - 3, ".spt") == 0)
			return true;
	return false;
}

static void drop_h5_twins(struct pathlist *l)
{
	/* Marked first, compacted after: the search must see the whole list
	 * (compacting as it goes read freed entries: two ranks' twins). */
	bool *drop = xcalloc(l->n + 1, sizeof(*drop));
	if (!drop)
		return; /* duplicates then refused as such: an error, not a crash */
	for (size_t i = 0; i < l->n; i++)
		drop[i] = has_spt_twin(l, l->v[i]);
	size_t w = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (drop[i])
			xfree(l->v[i]);
		else
			l->v[w++] = l->v[i];
	}
	l->n = w;
	xfree(drop);
}

static int collect(const char *const *inputs, size_t n, struct pathlist *l, struct err *e)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct stat st;
		if (stat(inputs[i], &st) != 0)
			return err_set(e, -ENOENT, ERR_TRACE_OPEN,
				       "%s: no such file or directory: give the traces (*.spt, "
				       "*_rank<N>.h5) or the directory holding them (where "
				       "SCOPE_PROFILER_PREFIX pointed the program)",
				       inputs[i]);
		if (S_ISDIR(st.st_mode))
			rc = scan_dir(inputs[i], l, e);
		else
			rc = pathlist__add_take(l, xstrdup(inputs[i]));
	}
	if (rc)
		return rc;
	if (l->n == 0)
		return err_set(e, -ENOENT, ERR_TRACE_NONE, "no trace file given");
	qsort(l->v, l->n, sizeof(*l->v), cmp_str);
	size_t w = 1;
	for (size_t i = 1; i < l->n; i++) {
		if (strcmp(l->v[i], l->v[w - 1]) == 0)
			xfree(l->v[i]);
		else
			l->v[w++] = l->v[i];
	}
	l->n = w;
	drop_h5_twins(l);
	return 0;
}

int trace_map_file(const char *path, void **map, size_t *len, struct err *e)
{
	static unsigned char empty[1];
	/* no symlink followed, no FIFO waited on (docs/security.md) */
	int fd = safefs_open_regular(path);
	if (fd < 0)
		return err_set(e, fd, ERR_TRACE_OPEN, "%s: cannot open: %s", path,
			       safefs_strerror(fd));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int er = errno;
		close(fd);
		return err_set(e, -er, ERR_TRACE_OPEN, "%s: cannot open: %s", path, strerror(er));
	}
	*len = (size_t)st.st_size;
	*map = empty;
	if (*len > 0) {
		*map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*map == MAP_FAILED) {
			int er = errno;
			close(fd);
			return err_set(e, -er, ERR_TRACE_OPEN, "%s: cannot map: %s", path,
				       strerror(er));
		}
		/* One sequential pass: let the kernel read ahead. */
		madvise(*map, *len, MADV_SEQUENTIAL);
	}
	close(fd);
	return 0;
}

void trace_unmap_file(void *map, size_t len)
{
	if (map && len > 0)
		munmap(map, len);
}

static int add_source(struct trace_set *ts, size_t *cap, const char *path, enum trace_kind k,
		      int32_t rank)
{
	if (xgrow((void **)&ts->src, cap, ts->nr_src + 1, sizeof(*ts->src)))
		return -ENOMEM;
	struct trace_source *s = &ts->src[ts->nr_src];
	s->path = xstrdup(path);
	if (!s->path)
		return -ENOMEM;
	s->kind = k;
	s->rank = rank;
	ts->nr_src++;
	return 0;
}

static int read_rank(struct trace_set *ts, size_t *cap, const char *path, struct err *e)
{
	size_t n = strlen(path);
	if (n > 3 && strcmp(path + n - 3, ".h5") == 0) {
		int32_t *ranks = NULL;
		size_t nr = 0;
		int rc = trace_h5_list_ranks(path, &ranks, &nr, e);
		for (size_t i = 0; rc == 0 && i < nr; i++)
			rc = add_source(ts, cap, path, TRACE_H5, ranks[i]);
		xfree(ranks);
		return rc;
	}
	void *map;
	size_t len;
	struct spt_trace t;
	int rc = trace_map_file(path, &map, &len, e);
	if (rc)
		return rc;
	rc = spt_parse(map, len, path, &t, e);
	if (rc == 0) {
		rc = add_source(ts, cap, path, TRACE_SPT, t.rank);
		spt_trace__release(&t);
	}
	trace_unmap_file(map, len);
	return rc;
}

static int cmp_src(const void *a, const void *b)
{
	const struct trace_source *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The run's name: what precedes "_rank" in the first file's base name. */
static char *make_label(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *r = strstr(base, "_rank");
	if (r && r > base)
		return xstrndup(base, (size_t)(r - base));
	const char *dot = strrchr(base, '.');
	return xstrndup(base, dot && dot > base ? (size_t)(dot - base) : strlen(base));
}

int trace_set__open(struct trace_set *ts, const char *const *inputs, size_t nr_inputs,
		    struct err *e)
{
	struct pathlist l = {0};
	size_t cap = 0;
	memset(ts, 0, sizeof(*ts));
	int rc = collect(inputs, nr_inputs, &l, e);
	for (size_t i = 0; rc == 0 && i < l.n; i++)
		rc = read_rank(ts, &cap, l.v[i], e);
	if (rc == 0) {
		qsort(ts->src, ts->nr_src, sizeof(*ts->src), cmp_src);
		for (size_t i = 1; i < ts->nr_src && rc == 0; i++)
			if (ts->src[i].rank == ts->src[i - 1].rank)
				rc = err_set(e, -EINVAL, ERR_TRACE_DUPLICATE_RANK,
					     "%s and %s both claim rank %" PRId32
					     ": pass the traces of one run only",
					     ts->src[i - 1].path, ts->src[i].path, ts->src[i].rank);
	}
	if (rc == 0 && !(ts->label = make_label(l.v[0])))
		rc = -ENOMEM;
	for (size_t i = 0; i < l.n; i++)
		xfree(l.v[i]);
	xfree(l.v);
	if (rc)
		trace_set__release(ts);
	return rc;
}

void trace_set__sizes(size_t *trace_set, size_t *rank_data)
{
	*trace_set = sizeof(struct trace_set);
	*rank_data = sizeof(struct rank_data);
}

void trace_set__release(struct trace_set *ts)
{
	for (size_t i = 0; i < ts->nr_src; i++)
		xfree(ts->src[i].path);
	xfree(ts->src);
	for (uint32_t i = 0; i < ts->nr_regions; i++) {
		xfree(ts->regions[i].name);
		xfree(ts->regions[i].file);
	}
	xfree(ts->regions);
	oatab__release(&ts->index);
	xfree(ts->label);
	rank_notes__release(&ts->notes);
	memset(ts, 0, sizeof(*ts));
}

int trace_set__from_spt(struct trace_set *ts, const struct spt_trace *t, struct rank_data *rd,
			struct err *e)
{
	rd->rank = t->rank;
	rd->swap = t->swap;
	rd->regions = xcalloc((size_t)t->nr_regions + 1, sizeof(*rd->regions));
	rd->nr_lanes = t->version >= 3 && t->nr_threads > 0 ? t->nr_threads : 1;
	rd->lanes = xcalloc((size_t)rd->nr_lanes, sizeof(*rd->lanes));
	if (!rd->regions || !rd->lanes)
		return err_oom(e);
	rd->lanes[0].tid = -1;
	for (int32_t i = 0; i < t->nr_threads; i++) {
		rd->lanes[i].tid = t->threads[i].tid;
		rd->lanes[i].name = trace_set__clean_name(t->threads[i].name, t->threads[i].name_len);
	}
	for (int64_t i = 0; i < t->nr_regions; i++) {
		const struct spt_region *r = &t->regions[i];
		int64_t id = trace_set__intern(ts, r->name, r->name_len, r->file, r->file_len,
					       r->line);
		if (id < 0)
			return err_oom(e);
		rd->regions[i] = (struct rank_region){(uint32_t)id, r->nr_calls, r->starts,
						      r->ends, t->nr_threads > 0 ? r->lanes : NULL,
						      r->starts_offset, r->lanes_offset};
		rd->nr_regions = (size_t)i + 1;
	}
	return 0;
}

static int load_spt(struct trace_set *ts, const struct trace_source *s, struct rank_data *rd,
		    struct err *e)
{
	struct spt_trace t;
	int rc = trace_map_file(s->path, &rd->map, &rd->map_len, e);
	if (rc || (rc = spt_parse(rd->map, rd->map_len, s->path, &t, e)))
		return rc;
	rc = trace_set__from_spt(ts, &t, rd, e);
	unsigned char *img = spt_trace__take_image(&t);
	if (img && xgrow((void **)&rd->owned, &rd->cap_owned, rd->nr_owned + 1,
			 sizeof(*rd->owned))) {
		xfree(img);
		rc = err_oom(e);
	} else if (img) {
		rd->owned[rd->nr_owned++] = img; /* the views point into it */
	}
	bool known = false;
	for (size_t k = 0; k < ts->notes.nr; k++)
		known |= ts->notes.v[k].rank == t.rank;
	if (rc == 0 && !known && rank_notes__add(&ts->notes, &t, t.rank))
		rc = err_oom(e);
	spt_trace__release(&t);
	return rc;
}

int trace_set__load(struct trace_set *ts, size_t i, struct rank_data *rd, struct err *e)
{
	const struct trace_source *s = &ts->src[i];
	memset(rd, 0, sizeof(*rd));
	rd->path = s->path;
	rd->rank = s->rank;
	int rc = s->kind == TRACE_H5 ? trace_h5_load(ts, s->path, s->rank, rd, e)
				     : load_spt(ts, s, rd, e);
	if (rc == 0 && region_filter__apply(ts->filter, ts, rd))
		rc = err_oom(e);
	if (rc)
		rank_data__release(rd);
	return rc;
}

void rank_data__release(struct rank_data *rd)
{
	trace_unmap_file(rd->map, rd->map_len);
	for (size_t i = 0; i < rd->nr_owned; i++)
		xfree(rd->owned[i]);
	xfree(rd->owned);
	for (int32_t i = 0; rd->lanes && i < rd->nr_lanes; i++)
		xfree(rd->lanes[i].name);
	xfree(rd->lanes);
	xfree(rd->regions);
	memset(rd, 0, sizeof(*rd));
}
