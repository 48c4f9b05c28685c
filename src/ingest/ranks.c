// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/ranks.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "ingest/perf_data.h"
#include "ingest/ranks_read.h"
#include "ingest/sps_ingest.h"
#include "ingest/perf_script.h"
#include "ingest/perf_stat.h"
#include "common/fsutil.h"
#include "common/host_clock.h"

#define MAX_SCRIPT_BYTES ((size_t)16 << 30)
#define MAX_SMALL_BYTES ((size_t)64 << 20)

/* The ranks that share one degradation name, merged into one declaration. */
struct merged {
	char *name, *message, *remedy; /* of the first rank that reported it */
	int *ranks;
	int n, cap;
};

struct rank_walk {
	const char *collect_dir;
	struct pivot *p;
	struct degradations *d;
	struct ranks_summary *sum;
	int *present;     /* ranks with a rank.json */
	int nr_present, cap_present;
	int *uncounted;
	int nr_uncounted, cap_uncounted;
	struct merged *m;
	size_t nr_m, cap_m;
	struct rank_reads *reads; /* the ranks' recordings, read ahead */
	struct host_clock here;   /* this node's clocks, to put the ranks' on */
};

static int push_int(int **v, int *n, int *cap, int x)
{
	if (*n == *cap) {
		size_t c = (size_t)*cap;
		if (xgrow((void **)v, &c, (size_t)*n + 1, sizeof(int)) < 0)
			return -ENOMEM;
		*cap = (int)c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

const char *ranks_format_list(const int *ranks, int n, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		char item[32];
		if (j > i)
			snprintf(item, sizeof(item), "%s%d-%d", i ? ", " : "", ranks[i], ranks[j]);
		else
			snprintf(item, sizeof(item), "%s%d", i ? ", " : "", ranks[i]);
		if (len + strlen(item) + 4 >= cap) {
			snprintf(buf + len, cap - len, "...");
			break;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s", item);
		i = j + 1;
	}
	return buf;
}

static int merge_degradation(struct rank_walk *w, int rank, const char *name, const char *msg,
			     const char *remedy)
{
	struct merged *m = NULL;
	for (size_t i = 0; i < w->nr_m && !m; i++)
		if (strcmp(w->m[i].name, name) == 0)
			m = &w->m[i];
	if (!m) {
		if (xgrow((void **)&w->m, &w->cap_m, w->nr_m + 1, sizeof(*w->m)) < 0)
			return -ENOMEM;
		m = &w->m[w->nr_m++];
		*m = (struct merged){xstrdup(name), xstrdup(msg), xstrdup(remedy ? remedy : ""),
				     NULL, 0, 0};
	}
	return push_int(&m->ranks, &m->n, &m->cap, rank);
}

static char *rank_file(const struct rank_walk *w, int rank, const char *name)
{
	return xasprintf("%s/rank-%d/%s", w->collect_dir, rank, name);
}

static int take_stats(struct rank_walk *w, int rank, struct ingest_stats *st);

/* The perf-script.txt fallback, for a perf.data our reader refuses. */
static int ingest_script_text(struct rank_walk *w, int rank, const struct ingest_opts *base,
			      struct ingest_stats *st, struct err *e)
{
	char *script = rank_file(w, rank, "perf-script.txt");
	char *bids = rank_file(w, rank, "perf-buildid-list.txt");
	char *buf = NULL;
	size_t len = 0;
	struct buildid_list ids;
	buildid_list__init(&ids);
	int rc = 1;
	if (!script || !bids) {
		rc = err_oom(e);
		goto out;
	}
	if (fs_read_file(bids, MAX_SMALL_BYTES, &buf, &len) == 0)
		buildid_list__parse(&ids, buf, len, NULL); /* none: no physical identity */
	zfree(&buf);
	if (fs_read_file(script, MAX_SCRIPT_BYTES, &buf, &len) == 0) {
		struct ingest_opts o = *base;
		o.build_ids = &ids;
		rc = ingest_perf_script(buf, len, &o, w->p, st, e);
	}
out:
	buildid_list__release(&ids);
	xfree(buf);
	xfree(script);
	xfree(bids);
	return rc;
}

/* A sampling rank: its perf.data read directly (offsets from its own mmap
 * events; build-ids from the shim's list, perf record -B wrote none in the
 * header, else from the header), else its perf-script.txt. The read was
 * made ahead (ingest/ranks_read.h); only its emit happens here, in rank
 * order. */
static int ingest_samples(struct rank_walk *w, int rank, const char *node, struct err *e)
{
	struct rank_read *x = rank_reads__find(w->reads, rank), own = {.rank = rank};
	if (!x || !x->sampled) { /* not read ahead (out of memory): read now */
		buildid_list__init(&own.ids);
		rank_read__perf(w->collect_dir, &own);
		x = &own;
	}
	struct ingest_opts o = {.sz = sizeof(o), .node = node, .rank = rank, .pass_index = 0,
				.build_ids = x->have_ids ? &x->ids : NULL};
	struct ingest_stats st = x->st; /* taken: counted by the read */
	memset(&x->st, 0, sizeof(x->st));
	struct err de = x->e;
	int rc = x->rc;
	if (rc == 0)
		rc = perf_data_read__emit(x->r, &o, w->p, &st, &de); /* -ENOMEM only */
	if (rc < 0 && rc != -ENOMEM) {
		ingest_stats__release(&st);
		st = (struct ingest_stats){0};
		rc = ingest_script_text(w, rank, &o, &st, e);
		if (rc == 1) {
			char msg[ERR_MSG_SIZE + 128];
			snprintf(msg, sizeof(msg), "a sampling rank's recording is unreadable (%s) and "
				 "it left no perf-script.txt: its samples are lost", de.msg);
			rc = merge_degradation(w, rank, DEG_RANK_SAMPLES_UNREADABLE, msg,
					       DEG_RANK_SAMPLES_UNREADABLE_REMEDY);
		}
	} else if (rc == -ENOMEM) {
		err_set(e, rc, ERR_OOM, "out of memory");
	}
	if (rc == 0) {
		ingest_stats__degrade(&st);
		rc = take_stats(w, rank, &st);
		w->sum->nr_samples += (int64_t)st.nr_samples;
		w->sum->nr_switches += (int64_t)st.nr_switch_outs;
		w->sum->nr_sampled += st.nr_samples > 0;
	}
	ingest_stats__release(&st);
	/* the read is spent: its memory goes back now, not after every rank */
	rank_read__release(x);
	return rc;
}

static int take_stats(struct rank_walk *w, int rank, struct ingest_stats *st)
{
	int rc = 0;
	for (size_t i = 0; i < st->degradations.n && rc == 0; i++)
		rc = merge_degradation(w, rank, st->degradations.v[i].name,
				       st->degradations.v[i].message, st->degradations.v[i].remedy);
	return rc;
}

static int ingest_counts(struct rank_walk *w, int rank, const char *node, bool *counted,
			 struct err *e)
{
	char *csv = rank_file(w, rank, "perf-stat.csv");
	char *buf = NULL;
	size_t len = 0;
	int rc = 0;
	*counted = false;
	if (!csv)
		return err_oom(e);
	if (fs_read_file(csv, MAX_SMALL_BYTES, &buf, &len) == 0) {
		struct ingest_opts o = {.sz = sizeof(o), .node = node, .rank = rank};
		struct ingest_stats st = {0};
		int n = ingest_perf_stat(buf, len, &o, w->p, &st, e);
		rc = n < 0 ? n : take_stats(w, rank, &st);
		*counted = n > 0;
		ingest_stats__release(&st);
	}
	w->sum->nr_counted += *counted;
	xfree(buf);
	xfree(csv);
	return rc;
}

/* A rank sampled by the preload sampler (rank.json "sps": its .sps file,
 * relative to collect/): timer samples, as in a single process. */
static int ingest_preload_rank(struct rank_walk *w, int rank, const char *node,
			       const char *rel, struct err *e)
{
	char *path = xasprintf("%s/%s", w->collect_dir, rel);
	if (!path)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	int rc = 0;
	if (access(path, R_OK) != 0) {
		rc = merge_degradation(w, rank, DEG_PRELOAD_SAMPLER_SILENT,
				       "the preload sampler wrote no samples for a rank (a static "
				       "program ignores LD_PRELOAD; _exit() or a signal skips the "
				       "library's exit hook)",
				       DEG_PRELOAD_SAMPLER_SILENT_REMEDY);
	} else {
		struct ingest_opts o = {.sz = sizeof(o), .node = node, .rank = rank};
		struct sps_ingest_info info;
		const char *paths[] = {path};
		rc = ingest_sps_files(paths, 1, &o, w->p, &info, e);
		if (rc == 0) {
			w->sum->nr_samples += info.samples;
			w->sum->nr_sampled += info.samples > 0;
		}
	}
	xfree(path);
	return rc;
}

/* One rank directory: rank.json, then its counts or samples. */
/* The rank's start and end (rank.json "clock") into the summary's span. */
static void take_clock(struct rank_walk *w, const json_t *c)
{
	const char *boot = json_string_value(json_object_get(c, "boot_id"));
	json_t *sm = json_object_get(c, "started_mono"), *sr = json_object_get(c, "started_real");
	json_t *em = json_object_get(c, "ended_mono"), *er = json_object_get(c, "ended_real");
	if (!json_is_number(sm) || !json_is_number(sr) || !json_is_number(em) ||
	    !json_is_number(er))
		return;
	struct host_clock a = {.mono = json_number_value(sm), .real = json_number_value(sr)};
	struct host_clock b = {.mono = json_number_value(em), .real = json_number_value(er)};
	if (boot)
		snprintf(a.boot_id, sizeof(a.boot_id), "%s", boot);
	memcpy(b.boot_id, a.boot_id, sizeof(b.boot_id));
	bool same;
	double start = host_clock__on(&w->here, &a, &same);
	double end = host_clock__on(&w->here, &b, &same);
	if (!(end >= start) || !isfinite(start) || !isfinite(end))
		return;
	struct ranks_summary *s = w->sum;
	s->clock_by_wall |= !same;
	if (s->nr_clocked == 0 || start < s->first_started)
		s->first_started = start;
	if (s->nr_clocked == 0 || end > s->last_ended)
		s->last_ended = end;
	s->nr_clocked++;
}

static int ingest_one(struct rank_walk *w, int dir_rank, struct err *e)
{
	char *path = rank_file(w, dir_rank, "rank.json");
	if (!path)
		return err_oom(e);
	json_t *j = json_load_file(path, 0, NULL);
	xfree(path);
	json_int_t rank = json_integer_value(json_object_get(j, "rank"));
	if (!json_is_object(j) || rank != dir_rank) {
		json_decref(j);
		return 0; /* no usable rank.json: declared missing below */
	}
	const char *node = json_string_value(json_object_get(j, "node"));
	node = node ? node : "unknown";
	take_clock(w, json_object_get(j, "clock"));
	json_t *ws = json_object_get(j, "world_size");
	if (json_is_integer(ws) && w->sum->world_size < (int)json_integer_value(ws))
		w->sum->world_size = (int)json_integer_value(ws);
	int rc = push_int(&w->present, &w->nr_present, &w->cap_present, dir_rank);
	size_t i;
	json_t *dg;
	bool started = true; /* the shim's rank-app-missing: not a perf problem */
	json_array_foreach(json_object_get(j, "degradations"), i, dg)
	{
		const char *n = json_string_value(json_object_get(dg, "name"));
		if (n && strcmp(n, DEG_RANK_APP_MISSING) == 0)
			started = false;
		const char *m = json_string_value(json_object_get(dg, "message"));
		if (rc == 0 && n && m)
			rc = merge_degradation(w, dir_rank, n, m,
					       json_string_value(json_object_get(dg, "remedy")));
	}
	bool counted = false;
	int64_t before = w->sum->nr_samples;
	const char *sps = json_string_value(json_object_get(j, "sps"));
	if (rc == 0 && sps)
		rc = ingest_preload_rank(w, dir_rank, node, sps, e);
	else if (rc == 0 && json_is_true(json_object_get(j, "sampled")))
		rc = ingest_samples(w, dir_rank, node, e);
	if (rc == 0)
		rc = ingest_counts(w, dir_rank, node, &counted, e);
	if (rc == 0 && started && !counted && w->sum->nr_samples == before)
		rc = push_int(&w->uncounted, &w->nr_uncounted, &w->cap_uncounted, dir_rank);
	json_decref(j);
	return rc;
}

/* The rank numbers of the rank-<N> directories, sorted. */
static int list_rank_dirs(const char *dir, int **out, int *n, struct err *e)
{
	DIR *d = opendir(dir);
	int cap = 0;
	*out = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0
				       : err_set(e, -errno, ERR_RANKS_READ, "cannot read %s: %s", dir,
						 strerror(errno));
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		char *end = NULL;
		if (strncmp(de->d_name, "rank-", 5) != 0)
			continue;
		long r = strtol(de->d_name + 5, &end, 10);
		if (end != de->d_name + 5 && !*end && r >= 0 && r < (1L << 24))
			rc = push_int(out, n, &cap, (int)r);
	}
	closedir(d);
	if (rc < 0)
		return err_set(e, rc, ERR_OOM, "out of memory");
	qsort(*out, (size_t)*n, sizeof(int), cmp_int);
	return 0;
}

static int declare(struct rank_walk *w, int world, struct err *e)
{
	char list[200], msg[400];
	int rc = 0;
	for (size_t i = 0; i < w->nr_m && rc >= 0; i++) {
		struct merged *m = &w->m[i];
		qsort(m->ranks, (size_t)m->n, sizeof(int), cmp_int);
		if (m->n > 1)
			snprintf(msg, sizeof(msg), "%s (on %d ranks: %s)", m->message, m->n,
				 ranks_format_list(m->ranks, m->n, list, sizeof(list)));
		else
			snprintf(msg, sizeof(msg), "%s", m->message);
		rc = degradations__add(w->d, m->name, msg, m->remedy);
	}
	if (rc >= 0 && w->nr_uncounted) {
		snprintf(msg, sizeof(msg), "%d rank%s ran neither counted nor sampled: %s",
			 w->nr_uncounted,
			 w->nr_uncounted == 1 ? "" : "s",
			 ranks_format_list(w->uncounted, w->nr_uncounted, list, sizeof(list)));
		rc = degradations__add(w->d, DEG_RANKS_UNCOUNTED, msg,
				       DEG_RANKS_UNCOUNTED_REMEDY);
	}
	int *missing = NULL, nm = 0, cm = 0, *partial = NULL, np = 0, cp = 0;
	for (int r = 0, k = 0; r < world && rc >= 0; r++) {
		while (k < w->nr_present && w->present[k] < r)
			k++;
		if (k < w->nr_present && w->present[k] == r)
			continue;
		/* The shim died but the application's MPI profile is there
		 * (ingest/mpi.h reads it): not missing, incomplete. */
		char *prof = rank_file(w, r, "mpi-profile.txt");
		bool has_profile = prof && access(prof, R_OK) == 0;
		xfree(prof);
		rc = has_profile ? push_int(&partial, &np, &cp, r) : push_int(&missing, &nm, &cm, r);
	}
	if (rc >= 0 && np) {
		snprintf(msg, sizeof(msg),
			 "%d of %d ranks left only their MPI profile (no rank.json): %s; their "
			 "shim was killed (the launcher ends every rank when one dies) or crashed: "
			 "they were neither sampled nor counted", np, world,
			 ranks_format_list(partial, np, list, sizeof(list)));
		rc = degradations__add(w->d, DEG_RANKS_INCOMPLETE, msg,
				       DEG_RANKS_INCOMPLETE_REMEDY);
	}
	xfree(partial);
	w->sum->nr_missing = nm;
	if (rc >= 0 && nm) {
		snprintf(msg, sizeof(msg),
			 "%d of %d ranks left no usable artefacts (no rank.json): %s; they crashed, "
			 "were killed, or their node does not share the Run directory", nm, world,
			 ranks_format_list(missing, nm, list, sizeof(list)));
		rc = degradations__add(w->d, DEG_RANKS_MISSING, msg,
				       DEG_RANKS_MISSING_REMEDY);
	}
	xfree(missing);
	return rc < 0 ? err_set(e, rc, ERR_OOM, "out of memory") : 0;
}

int ingest_ranks(const char *collect_dir, int world_size, struct pivot *p,
		 struct degradations *d, struct ranks_summary *out, struct err *e)
{
	return ingest_ranks_ahead(collect_dir, world_size, NULL, 0, p, d, out, e);
}

int ingest_ranks_ahead(const char *collect_dir, int world_size, struct ranks_prefetch *pf,
		       int threads, struct pivot *p, struct degradations *d,
		       struct ranks_summary *out, struct err *e)
{
	struct rank_reads rr = {0};
	int rc = 0;
	if (ranks_prefetch__take(pf, &rr) < 0) { /* those read while the launch ran */
		*out = (struct ranks_summary){.world_size = world_size};
		rc = err_oom(e);
	} else {
		rc = ingest_ranks_reads(collect_dir, world_size, &rr, threads, p, d, out, e);
	}
	rank_reads__release(&rr);
	return rc;
}

int ingest_ranks_reads(const char *collect_dir, int world_size, struct rank_reads *rr,
		       int threads, struct pivot *p, struct degradations *d,
		       struct ranks_summary *out, struct err *e)
{
	*out = (struct ranks_summary){.world_size = world_size};
	struct rank_walk w = {.collect_dir = collect_dir, .p = p, .d = d, .sum = out, .reads = rr};
	host_clock__now(&w.here);
	int *dirs = NULL, nr_dirs = 0;
	int rc = list_rank_dirs(collect_dir, &dirs, &nr_dirs, e);
	/* the recordings not read yet, on the node's cores; written into the
	 * pivot below, in rank order */
	if (rc == 0 && ranks_read_rest(collect_dir, dirs, nr_dirs, threads, rr) < 0)
		rc = err_oom(e);
	for (int i = 0; rc == 0 && i < nr_dirs; i++)
		rc = ingest_one(&w, dirs[i], e);
	out->nr_ranks = w.nr_present;
	out->nr_uncounted = w.nr_uncounted;
	if (rc == 0 && (nr_dirs > 0 || world_size > 0))
		rc = declare(&w, out->world_size, e);
	for (size_t i = 0; i < w.nr_m; i++) {
		xfree(w.m[i].name);
		xfree(w.m[i].message);
		xfree(w.m[i].remedy);
		xfree(w.m[i].ranks);
	}
	xfree(w.m);
	xfree(w.present);
	xfree(w.uncounted);
	xfree(dirs);
	return rc;
}
