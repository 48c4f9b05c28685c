// SPDX-License-Identifier: BSD-3-Clause
/* modules/h5_job.h and the reading functions of modules/trace_h5.h: each
 * call of the HDF5 module made in a child, the child's stream and the
 * parent's reading of it.
 *
 * Stream: u32 H5J_MAGIC, i32 rc; when rc is 0: u32 new regions, each
 * (string name, string file, i32 line) in id order from the parent's count,
 * then the job's result; always: i32 errnum, string code, string message,
 * u32 H5J_END. Strings are u32 length (H5J_NULL: none) and bytes. Numbers
 * are native: the stream never leaves the machine, nor the executable. */
#include "modules/h5_job.h"

#include "modules/trace_h5.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "regions/region_counters.h"
#include "regions/trace_set.h"

#define H5J_MAGIC 0x314a3548u /* "H5J1" */
#define H5J_END 0x21444e45u   /* "END!" */
#define H5J_NULL UINT32_MAX

/* ---- the child's side: a buffered writer to the pipe ---- */

struct wire {
	int fd;
	bool failed;
	size_t n;
	unsigned char buf[1 << 16];
};

static void w_flush(struct wire *w, const void *p, size_t n)
{
	const unsigned char *c = p;
	while (n && !w->failed) {
		ssize_t k = write(w->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->failed = true;
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

static void w_bytes(struct wire *w, const void *p, size_t n)
{
	if (w->n + n > sizeof(w->buf)) {
		w_flush(w, w->buf, w->n);
		w->n = 0;
	}
	if (n > sizeof(w->buf)) {
		w_flush(w, p, n);
		return;
	}
	if (n)
		memcpy(w->buf + w->n, p, n);
	w->n += n;
}

static void w_u32(struct wire *w, uint32_t v) { w_bytes(w, &v, sizeof(v)); }
static void w_i32(struct wire *w, int32_t v) { w_bytes(w, &v, sizeof(v)); }
static void w_u64(struct wire *w, uint64_t v) { w_bytes(w, &v, sizeof(v)); }
static void w_i64(struct wire *w, int64_t v) { w_bytes(w, &v, sizeof(v)); }

static void w_str(struct wire *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	w_u32(w, s ? (uint32_t)n : H5J_NULL);
	w_bytes(w, s, n);
}

static void send_regions(struct wire *w, const struct trace_set *ts, uint32_t from)
{
	uint32_t n = ts && ts->nr_regions > from ? ts->nr_regions - from : 0;
	w_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct region_info *r = &ts->regions[from + i];
		w_str(w, r->name);
		w_str(w, r->file);
		w_i32(w, r->line);
	}
}

static void send_load(struct wire *w, const struct rank_data *rd)
{
	w_i32(w, rd->nr_lanes);
	for (int32_t i = 0; i < rd->nr_lanes; i++) {
		w_i64(w, rd->lanes[i].tid);
		w_str(w, rd->lanes[i].name);
	}
	w_u64(w, rd->nr_regions);
	for (size_t i = 0; i < rd->nr_regions; i++) {
		const struct rank_region *r = &rd->regions[i];
		size_t n = (size_t)r->nr_calls;
		w_u32(w, r->id);
		w_i64(w, r->nr_calls);
		w_u32(w, r->lanes != NULL);
		w_bytes(w, r->starts, n * 8);
		w_bytes(w, r->ends, n * 8);
		if (r->lanes)
			w_bytes(w, r->lanes, n * 4);
	}
}

static void send_counters(struct wire *w, const struct region_counters *rc)
{
	w_str(w, rc->backend);
	w_u32(w, rc->test_backend);
	w_u64(w, rc->nr_events);
	for (size_t i = 0; i < rc->nr_events; i++) {
		const struct ctr_event_info *v = &rc->events[i];
		w_str(w, v->name);
		w_i32(w, v->kind);
		w_u64(w, v->ranks_counted);
		w_u64(w, v->ranks_unavailable);
		w_str(w, v->reason);
		w_i32(w, v->reason_rank);
	}
	w_u64(w, rc->events_over);
	w_u64(w, rc->nr_rows);
	w_bytes(w, rc->rows, rc->nr_rows * sizeof(*rc->rows));
	w_u64(w, rc->ranks_with);
	w_u64(w, rc->ranks_without);
	w_i64(w, rc->threads_without);
	w_i64(w, rc->dropped);
}

static void send_result(struct wire *w, const struct h5_job *j)
{
	switch (j->kind) {
	case H5_JOB_RANKS:
		w_u64(w, j->nr_ranks);
		w_bytes(w, j->ranks, j->nr_ranks * sizeof(*j->ranks));
		break;
	case H5_JOB_LOAD:
		send_load(w, j->rd);
		break;
	case H5_JOB_COUNTERS:
		send_counters(w, j->rc);
		break;
	case H5_JOB_CONVERT:
	case H5_JOB_MERGE:
		break;
	}
}

static int child_main(void *arg, int fd)
{
	struct h5_job *j = arg;
	struct wire *w = xmalloc(sizeof(*w));
	if (!w)
		return 1;
	w->fd = fd;
	w->failed = false;
	w->n = 0;
	uint32_t from = j->ts ? j->ts->nr_regions : 0;
	struct err e = {0};
	int rc = h5_module_call(j, &e);
	w_u32(w, H5J_MAGIC);
	w_i32(w, rc);
	if (rc == 0) {
		send_regions(w, j->ts, from);
		send_result(w, j);
	}
	w_i32(w, e.errnum);
	w_str(w, e.code);
	w_str(w, e.msg);
	w_u32(w, H5J_END);
	w_flush(w, w->buf, w->n);
	return w->failed ? 1 : 0;
}

/* ---- the parent's side: a bounds-checked cursor over the stream ---- */

struct cur {
	const unsigned char *p;
	size_t n, off;
	bool bad;
};

static const void *r_view(struct cur *c, size_t n)
{
	if (c->bad || n > c->n - c->off) {
		c->bad = true;
		return NULL;
	}
	const void *v = c->p + c->off;
	c->off += n;
	return v;
}

static uint32_t r_u32(struct cur *c)
{
	uint32_t v = 0;
	const void *p = r_view(c, sizeof(v));
	if (p)
		memcpy(&v, p, sizeof(v));
	return v;
}

static int32_t r_i32(struct cur *c) { return (int32_t)r_u32(c); }

static uint64_t r_u64(struct cur *c)
{
	uint64_t v = 0;
	const void *p = r_view(c, sizeof(v));
	if (p)
		memcpy(&v, p, sizeof(v));
	return v;
}

static int64_t r_i64(struct cur *c) { return (int64_t)r_u64(c); }

/* A string of the stream: *s malloc'd or NULL (none); false when cut. */
static bool r_str(struct cur *c, char **s)
{
	*s = NULL;
	uint32_t n = r_u32(c);
	if (n == H5J_NULL || c->bad)
		return !c->bad;
	const char *v = r_view(c, n);
	*s = v ? xstrndup(v, n) : NULL;
	return v && *s;
}

/* The regions the child interned, interned here in the same order: the
 * ids the result names are then the same. */
static bool take_regions(struct cur *c, struct trace_set *ts)
{
	uint32_t n = r_u32(c), from = ts ? ts->nr_regions : 0;
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		char *name = NULL, *file = NULL;
		bool ok = r_str(c, &name) && r_str(c, &file) && name && ts;
		int32_t line = r_i32(c);
		int64_t id = ok ? trace_set__intern(ts, name, strlen(name), file,
						    file ? strlen(file) : 0, line)
				: -1;
		if (id != (int64_t)from + i)
			c->bad = true;
		xfree(name);
		xfree(file);
	}
	return !c->bad;
}

static bool take_lanes(struct cur *c, struct rank_data *rd)
{
	int32_t nl = r_i32(c);
	if (c->bad || nl < 1 || (size_t)nl > (c->n - c->off) / 12)
		return !(c->bad = true);
	rd->lanes = xcalloc((size_t)nl, sizeof(*rd->lanes));
	if (!rd->lanes)
		return !(c->bad = true);
	rd->nr_lanes = nl;
	for (int32_t i = 0; i < nl && !c->bad; i++) {
		rd->lanes[i].tid = r_i64(c);
		r_str(c, &rd->lanes[i].name);
	}
	return !c->bad;
}

/* The rank's calls stay in the stream's buffer (now rd's): views into it,
 * as into an mmap'd .spt. */
static bool take_load(struct cur *c, struct rank_data *rd, const struct trace_set *ts)
{
	if (!take_lanes(c, rd))
		return false;
	uint64_t nr = r_u64(c);
	if (c->bad || nr > (c->n - c->off) / 16)
		return !(c->bad = true);
	rd->regions = xcalloc(nr + 1, sizeof(*rd->regions));
	if (!rd->regions)
		return !(c->bad = true);
	for (uint64_t i = 0; i < nr && !c->bad; i++) {
		struct rank_region *r = &rd->regions[i];
		r->id = r_u32(c);
		r->nr_calls = r_i64(c);
		bool lanes = r_u32(c) != 0;
		if (c->bad || r->id >= ts->nr_regions || r->nr_calls < 0 ||
		    (uint64_t)r->nr_calls > (c->n - c->off) / 16)
			return !(c->bad = true);
		size_t n = (size_t)r->nr_calls;
		r->starts = r_view(c, n * 8);
		r->ends = r_view(c, n * 8);
		r->lanes = lanes ? r_view(c, n * 4) : NULL;
		rd->nr_regions++;
	}
	return !c->bad;
}

static bool take_events(struct cur *c, struct region_counters *rc)
{
	uint64_t ne = r_u64(c);
	if (c->bad || ne > CTR_EVENTS_MAX)
		return !(c->bad = true);
	for (uint64_t i = 0; i < ne && !c->bad; i++) {
		struct ctr_event_info *v = &rc->events[i];
		rc->nr_events = (size_t)i + 1;
		r_str(c, &v->name);
		v->kind = r_i32(c);
		v->ranks_counted = (size_t)r_u64(c);
		v->ranks_unavailable = (size_t)r_u64(c);
		r_str(c, &v->reason);
		v->reason_rank = r_i32(c);
	}
	return !c->bad;
}

/* The child's whole region_counters (the parent's rows plus the rank's)
 * replaces the parent's, which it started from; the filter stays. */
static bool take_counters(struct cur *c, struct region_counters *out, const struct trace_set *ts)
{
	struct region_counters rc;
	memset(&rc, 0, sizeof(rc));
	bool ok = r_str(c, &rc.backend);
	rc.test_backend = r_u32(c) != 0;
	ok = ok && take_events(c, &rc);
	rc.events_over = (size_t)r_u64(c);
	uint64_t nr = r_u64(c);
	size_t row = sizeof(struct ctr_row);
	/* bytes, maybe unaligned in the stream: copied, never accessed there */
	const unsigned char *rows = ok && nr <= (c->n - c->off) / row ? r_view(c, nr * row) : NULL;
	if (ok && nr && rows && !(rc.rows = xmalloc(nr * row)))
		c->bad = true;
	for (uint64_t i = 0; rows && rc.rows && i < nr; i++) {
		memcpy(&rc.rows[i], rows + i * row, row);
		if (rc.rows[i].region >= ts->nr_regions)
			c->bad = true;
		unsigned char *have = (unsigned char *)rc.rows[i].have; /* 0 or 1, as bool */
		for (size_t k = 0; k < CTR_EVENTS_MAX; k++)
			have[k] = have[k] != 0;
	}
	rc.nr_rows = rc.cap_rows = rows ? (size_t)nr : 0;
	rc.ranks_with = (size_t)r_u64(c);
	rc.ranks_without = (size_t)r_u64(c);
	rc.threads_without = r_i64(c);
	rc.dropped = r_i64(c);
	if (!ok || !rows || c->bad) {
		region_counters__release(&rc);
		return !(c->bad = true);
	}
	/* What an .h5 never adds stays the parent's: the filter, and each
	 * call's counts read from .spt ranks before (the child's copy of them
	 * is not sent back). */
	rc.selected = out->selected;
	rc.nr_selected = out->nr_selected;
	rc.want_calls = out->want_calls;
	rc.calls = out->calls;
	rc.nr_calls = out->nr_calls;
	rc.cap_calls = out->cap_calls;
	rc.calls_sorted = out->calls_sorted;
	rc.ranks_with_calls = out->ranks_with_calls;
	rc.calls_not_kept = out->calls_not_kept;
	rc.calls_newer_version = out->calls_newer_version;
	out->calls = NULL;
	region_counters__release(out);
	*out = rc;
	return true;
}

static bool take_result(struct cur *c, struct h5_job *j, struct exec_isolated *x)
{
	switch (j->kind) {
	case H5_JOB_RANKS: {
		uint64_t n = r_u64(c);
		const void *v = n <= (c->n - c->off) / 4 ? r_view(c, n * 4) : NULL;
		j->ranks = v && n ? xmalloc(n * 4) : NULL;
		if (!v || (n && !j->ranks))
			return !(c->bad = true);
		if (n)
			memcpy(j->ranks, v, n * 4);
		j->nr_ranks = (size_t)n;
		return true;
	}
	case H5_JOB_LOAD:
		if (!take_load(c, j->rd, j->ts))
			return false;
		/* the calls are views into the stream: rd owns it from here */
		if (xgrow((void **)&j->rd->owned, &j->rd->cap_owned, j->rd->nr_owned + 1,
			  sizeof(*j->rd->owned)))
			return !(c->bad = true);
		j->rd->owned[j->rd->nr_owned++] = x->out;
		x->out = NULL;
		return true;
	case H5_JOB_COUNTERS:
		return take_counters(c, j->rc, j->ts);
	case H5_JOB_CONVERT:
	case H5_JOB_MERGE:
		return true;
	}
	return false;
}

/* Reads the child's stream: 1 when it is cut (the child did not finish),
 * else the call's own 0 or negative (e filled as the child filled it). */
static int take_stream(struct h5_job *j, struct exec_isolated *x, struct err *e)
{
	struct cur c = {(const unsigned char *)x->out, x->out_len, 0, false};
	if (!x->out || r_u32(&c) != H5J_MAGIC)
		return 1;
	int rc = r_i32(&c);
	if (rc == 0 && (!take_regions(&c, j->ts) || !take_result(&c, j, x)))
		return 1;
	/* x->out may now be rd's: the trailer is read from c's view of it */
	int32_t errnum = r_i32(&c);
	char *code = NULL, *msg = NULL;
	bool ok = r_str(&c, &code) && r_str(&c, &msg) && r_u32(&c) == H5J_END;
	if (ok && rc)
		err_set(e, errnum < 0 ? errnum : -EIO, code ? code : ERR_TRACE_CORRUPT, "%s",
			msg ? msg : "(no message)");
	xfree(code);
	xfree(msg);
	return ok ? rc : 1;
}

static double time_limit(const char *path)
{
	const char *v = getenv("NUNATAK_H5_TIME_LIMIT");
	char *end = NULL;
	double s = v && *v ? strtod(v, &end) : 0;
	if (end && *end == '\0' && s > 0 && s < 1e6)
		return s;
	struct stat st;
	double size = path && stat(path, &st) == 0 ? (double)st.st_size : 0;
	return 60.0 + size / (8.0 * 1024 * 1024);
}

static void job_bounds(const struct h5_job *j, struct exec_bounds *b)
{
	struct stat st;
	size_t size = j->kind != H5_JOB_CONVERT && j->kind != H5_JOB_MERGE &&
				      stat(j->path, &st) == 0
			      ? (size_t)st.st_size
			      : 0;
	b->cpu_s = time_limit(j->kind == H5_JOB_CONVERT || j->kind == H5_JOB_MERGE ? NULL
										  : j->path);
	if (j->kind == H5_JOB_CONVERT || j->kind == H5_JOB_MERGE)
		b->cpu_s *= 10; /* reads every rank and writes them */
	b->wall_s = 3 * b->cpu_s + 30;
	size_t two_gib = (size_t)2 << 30;
	b->mem_bytes = size > two_gib / 16 ? size * 16 : two_gib;
	b->out_max = b->mem_bytes;
}

static const char *doing(const struct h5_job *j)
{
	return j->kind == H5_JOB_CONVERT || j->kind == H5_JOB_MERGE ? "writing" : "reading";
}

/* What became of a child that gave no complete answer. */
static int child_failed(const struct h5_job *j, const struct exec_isolated *x,
			const struct exec_bounds *b, struct err *e)
{
	if (x->timed_out || x->cpu_exceeded)
		return err_set(e, -ETIMEDOUT, ERR_TRACE_CORRUPT,
			       "%s: libhdf5 %s it did not end within %.0f s of %s (a corrupt file "
			       "makes it loop): stopped, nothing else affected; if the file is sound "
			       "and very large, allow more CPU seconds with NUNATAK_H5_TIME_LIMIT",
			       j->path, doing(j), x->timed_out ? b->wall_s : b->cpu_s,
			       x->timed_out ? "wall time" : "CPU");
	if (x->out_cut)
		return err_set(e, -EFBIG, ERR_TRACE_CORRUPT,
			       "%s: %s it gave more than %zu MiB (a corrupt file?): stopped",
			       j->path, doing(j), b->out_max >> 20);
	if (x->term_signal)
		return err_set(e, -EIO, ERR_TRACE_CORRUPT,
			       "%s: libhdf5 crashed %s it (%s, in the child process nunatak reads "
			       "and writes .h5 files in, limited to %zu MiB): the file is corrupt; "
			       "nothing else affected",
			       j->path, doing(j), strsignal(x->term_signal), b->mem_bytes >> 20);
	return err_set(e, -EIO, ERR_TRACE_CORRUPT,
		       "%s: the process %s it ended (exit %d) without an answer: the file is "
		       "corrupt, or memory ran out (limit %zu MiB)",
		       j->path, doing(j), x->exit_code, b->mem_bytes >> 20);
}

int h5_job_run(struct h5_job *j, struct err *e)
{
	struct exec_bounds b;
	job_bounds(j, &b);
	struct exec_isolated x;
	int rc = exec_isolate(child_main, j, &b, &x, e);
	if (rc) {
		err_prefix(e, "%s", j->path);
		return rc;
	}
	rc = take_stream(j, &x, e);
	if (rc == 1) {
		if (j->kind == H5_JOB_RANKS) {
			zfree(&j->ranks);
			j->nr_ranks = 0;
		}
		rc = child_failed(j, &x, &b, e);
	}
	exec_isolated__release(&x);
	return rc;
}

/* ---- modules/trace_h5.h ---- */

int trace_h5_list_ranks(const char *path, int32_t **ranks, size_t *nr, struct err *e)
{
	struct h5_job j = {.kind = H5_JOB_RANKS, .path = path};
	*ranks = NULL;
	*nr = 0;
	int rc = h5_job_run(&j, e);
	*ranks = j.ranks;
	*nr = j.nr_ranks;
	return rc;
}

int trace_h5_load(struct trace_set *ts, const char *path, int32_t rank, struct rank_data *rd,
		  struct err *e)
{
	struct h5_job j = {.kind = H5_JOB_LOAD, .path = path, .rank = rank, .ts = ts, .rd = rd};
	return h5_job_run(&j, e);
}

int trace_h5_counters(struct region_counters *rc, struct trace_set *ts, const char *path,
		      int32_t rank, struct err *e)
{
	struct h5_job j = {.kind = H5_JOB_COUNTERS, .path = path, .rank = rank, .ts = ts, .rc = rc};
	return h5_job_run(&j, e);
}

int trace_h5_convert(struct trace_set *ts, const char *out, struct console *con,
		     struct err *e)
{
	struct h5_job j = {.kind = H5_JOB_CONVERT, .path = out, .out = out, .ts = ts, .con = con};
	return h5_job_run(&j, e);
}

int trace_h5_merge(struct trace_set *runs, size_t nr, const char *const *names, const char *out,
		   struct console *con, struct err *e)
{
	struct h5_job j = {.kind = H5_JOB_MERGE, .path = out, .out = out, .runs = runs,
			   .nr_runs = nr, .names = names, .con = con};
	return h5_job_run(&j, e);
}
