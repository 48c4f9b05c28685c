// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/perf_script.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/perf_maps.h"
#include "ingest/switches.h"
#include "ingest/thread_names.h"

struct cursor {
	const char *p, *end;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && is_space(*c->p))
		c->p++;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Hex number, optional 0x; at least one digit, at most 16. */
static bool parse_hex(struct cursor *c, uint64_t *out)
{
	const char *p = c->p;
	if (c->end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t v = 0;
	int n = 0;
	for (; p < c->end && hexval(*p) >= 0; p++, n++)
		v = v << 4 | (uint64_t)hexval(*p);
	if (n == 0 || n > 16)
		return false;
	c->p = p;
	*out = v;
	return true;
}

static bool parse_dec(struct cursor *c, uint64_t *out, int *digits)
{
	uint64_t v = 0;
	int n = 0;
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++, n++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*c->p - '0');
	}
	if (digits)
		*digits = n;
	*out = v;
	return n > 0;
}

/* Signed decimal (mmap events print pid -1 for the kernel). */
static bool parse_int(struct cursor *c, int64_t *out)
{
	bool neg = c->p < c->end && *c->p == '-';
	if (neg)
		c->p++;
	uint64_t v;
	if (!parse_dec(c, &v, NULL) || v > INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* "SSSS.FFFFFF:" -> ns; perf prints 6 fractional digits, 9 with --ns. */
static bool parse_time(struct cursor *c, uint64_t *ns)
{
	uint64_t s, f;
	int fd;
	if (!parse_dec(c, &s, NULL) || c->p >= c->end || *c->p != '.')
		return false;
	c->p++;
	if (!parse_dec(c, &f, &fd) || fd > 9 || c->p >= c->end || *c->p != ':')
		return false;
	c->p++;
	for (; fd < 9; fd++)
		f *= 10;
	if (s > UINT64_MAX / 1000000000ULL - 1)
		return false;
	*ns = s * 1000000000ULL + f;
	return true;
}

/* The common prefix "comm pid/tid time:" of samples and side-band lines.
 * comm may contain spaces, so we take the first " pid/tid time:" that fits. */
struct prefix {
	const char *comm;
	size_t comm_len;
	int64_t pid, tid;
	uint64_t time_ns;
};

static bool parse_prefix(struct cursor *line, struct prefix *px)
{
	const char *start = line->p;
	while (start < line->end && *start == ' ')
		start++;
	for (const char *q = start; q < line->end; q++) {
		if (*q != ' ' || q == start)
			continue;
		struct cursor c = {q, line->end};
		skip_ws(&c);
		const char *tok = c.p;
		int64_t pid, tid;
		if (!parse_int(&c, &pid) || c.p >= c.end || *c.p != '/')
			continue;
		c.p++;
		if (!parse_int(&c, &tid) || c.p >= c.end || *c.p != ' ')
			continue;
		skip_ws(&c);
		if (!parse_time(&c, &px->time_ns))
			continue;
		const char *ce = tok;
		while (ce > start && ce[-1] == ' ')
			ce--;
		px->comm = start;
		px->comm_len = (size_t)(ce - start);
		px->pid = pid;
		px->tid = tid;
		*line = c;
		return true;
	}
	return false;
}

/* Parses " ip [sym ...] (dso)" from c to the end of the line into f. The
 * dso is the last balanced parenthesised group: symbols may hold parentheses
 * ("operator()(int)"), paths very rarely do. */
static bool parse_location(struct cursor *c, struct ingest_frame *f, uint64_t *ip,
			   bool *has_ip)
{
	skip_ws(c);
	const char *e = c->end;
	while (e > c->p && (is_space(e[-1]) || e[-1] == '\r'))
		e--;
	if (e <= c->p || e[-1] != ')')
		return false;
	int depth = 0;
	const char *open = NULL;
	for (const char *q = e - 1; q >= c->p; q--) {
		if (*q == ')')
			depth++;
		else if (*q == '(' && --depth == 0) {
			open = q;
			break;
		}
	}
	if (!open)
		return false;
	struct cursor ipc = {c->p, open};
	*has_ip = false;
	if (parse_hex(&ipc, ip) && (ipc.p == open || is_space(*ipc.p)))
		*has_ip = true;
	const char *ms = open + 1, *me = e - 1;
	f->module = ms;
	f->module_len = (size_t)(me - ms);
	f->has_offset = false;
	f->offset = 0;
	const char *plus = NULL;
	for (const char *q = me; q-- > ms;)
		if (*q == '+') {
			plus = q;
			break;
		}
	if (plus && me - plus > 3 && plus[1] == '0' && plus[2] == 'x') {
		struct cursor oc = {plus + 1, me};
		uint64_t off;
		if (parse_hex(&oc, &off) && oc.p == me) {
			f->module_len = (size_t)(plus - ms);
			f->offset = off;
			f->has_offset = true;
		}
	}
	if (f->module_len == 0)
		return false;
	if (f->module[0] == '[')
		f->has_offset = false; /* pseudo-modules are not files */
	return true;
}

struct parser {
	perf_sample_fn fn;
	void *ctx;
	struct ingest_stats *st;
	struct perf_maps *maps; /* created on the first mmap event */
	struct ingest_frame *frames;
	size_t nr_frames, cap_frames;
	bool chain_ended; /* a frame at address 0 ended the pending chain */
	struct ingest_sample pending; /* call-graph header awaiting its frames */
	bool has_pending;
	const char *pending_line;
	size_t pending_len;
	int64_t pending_lineno;
};

/* perf < 6.4: a file-backed location without dsoff gets its offset from the
 * maps, when the map covering ip is the same file. */
static void complete_offset(struct parser *ps, struct ingest_frame *f, int64_t pid, uint64_t ip,
			    bool has_ip, uint64_t time, bool is_frame)
{
	if (!f->has_offset && has_ip && ps->maps && f->module_len == 17 &&
	    memcmp(f->module, "[kernel.kallsyms]", 17) == 0) {
		f->has_offset = perf_maps__kernel_offset(
			perf_maps__find(ps->maps, PERF_MAPS_KERNEL_PID, ip, UINT64_MAX), ip, &f->offset);
		return;
	}
	if (f->has_offset || f->module[0] == '[')
		return;
	const struct perf_map *m = has_ip && ps->maps ? perf_maps__find(ps->maps, pid, ip, time)
						       : NULL;
	if (m && m->path_len == f->module_len && memcmp(m->path, f->module, f->module_len) == 0) {
		f->offset = ip - m->start + m->pgoff;
		f->has_offset = true;
		return;
	}
	/* perf < 6.4 prints call-chain entries already as map__map_ip(ip), the
	 * dsoff itself ("\t    1235 (/tmp/prog)"; fixed upstream by "perf
	 * script: Print raw ip instead of binary offset for callchain"). Accept
	 * the number as an offset when it is not an ip of that module but is a
	 * file offset one of its maps covers. */
	if (is_frame && has_ip && ps->maps &&
	    perf_maps__maps_offset(ps->maps, pid, f->module, f->module_len, ip)) {
		f->offset = ip;
		f->has_offset = true;
		return;
	}
	ps->st->nr_no_offset++;
}

/* "PERF_RECORD_MMAP2 pid/tid: [0xSTART(0xLEN) @ PGOFF ...]: prot path" */
static int sideband_mmap(struct parser *ps, struct cursor c, uint64_t time)
{
	int64_t pid, tid;
	uint64_t start, len, pgoff;
	if (c.p < c.end && *c.p == '2')
		c.p++;
	skip_ws(&c);
	if (!parse_int(&c, &pid) || c.p >= c.end || *c.p++ != '/' || !parse_int(&c, &tid))
		return 1;
	if (c.end - c.p < 3 || memcmp(c.p, ": [", 3) != 0)
		return 1;
	c.p += 3;
	if (!parse_hex(&c, &start) || c.p >= c.end || *c.p++ != '(' || !parse_hex(&c, &len) ||
	    c.end - c.p < 4 || memcmp(c.p, ") @ ", 4) != 0)
		return 1;
	c.p += 4;
	if (!parse_hex(&c, &pgoff))
		return 1;
	const char *q = c.p;
	while (q + 2 < c.end && !(q[0] == ']' && q[1] == ':' && q[2] == ' '))
		q++;
	if (q + 2 >= c.end)
		return 1;
	c.p = q + 3;
	while (c.p < c.end && !is_space(*c.p)) /* protection, "r-xp" or "x" */
		c.p++;
	skip_ws(&c);
	const char *pe = c.end;
	while (pe > c.p && (pe[-1] == '\r' || is_space(pe[-1])))
		pe--;
	if (pe == c.p)
		return 1;
	if (!ps->maps && !(ps->maps = perf_maps__new()))
		return -ENOMEM;
	return perf_maps__add(ps->maps, pid, start, len, pgoff, time, c.p, (size_t)(pe - c.p));
}

/* "PERF_RECORD_FORK(child_pid:child_tid):(parent_pid:parent_tid)" */
static int sideband_fork(struct parser *ps, struct cursor c, uint64_t time)
{
	int64_t cp, ct, pp, pt;
	if (c.p >= c.end || *c.p++ != '(' || !parse_int(&c, &cp) || c.p >= c.end ||
	    *c.p++ != ':' || !parse_int(&c, &ct) || c.end - c.p < 3 || memcmp(c.p, "):(", 3))
		return 1;
	c.p += 3;
	if (!parse_int(&c, &pp) || c.p >= c.end || *c.p++ != ':' || !parse_int(&c, &pt))
		return 1;
	if (!ps->maps && !(ps->maps = perf_maps__new()))
		return -ENOMEM;
	return perf_maps__fork(ps->maps, cp, pp, time);
}

static int sideband(struct parser *ps, struct cursor c, uint64_t time)
{
	static const char rec[] = "PERF_RECORD_";
	c.p += sizeof(rec) - 1;
	if (c.end - c.p >= 4 && memcmp(c.p, "MMAP", 4) == 0) {
		c.p += 4;
		return sideband_mmap(ps, c, time);
	}
	if (c.end - c.p >= 4 && memcmp(c.p, "FORK", 4) == 0) {
		c.p += 4;
		return sideband_fork(ps, c, time);
	}
	return 0; /* COMM, EXIT, LOST, ...: nothing we need */
}

static int emit(struct parser *ps, struct ingest_sample *s)
{
	/* a stack taken at a switch-out (context-switches, or the scheduler's
	 * tracepoint: tools/perf.h) is no CPU sample: perf script's text has no
	 * switch records to give it its off-CPU interval, so it is left out,
	 * as the direct reader leaves it to the switch log */
	if (switch_log__is_switch_event(s->event, s->event_len))
		return 0;
	ps->st->nr_samples++;
	return ps->fn(ps->ctx, s);
}

static int flush_pending(struct parser *ps)
{
	if (!ps->has_pending)
		return 0;
	ps->has_pending = false;
	if (ps->nr_frames == 0) {
		ingest_stats__unparsed(ps->st, ps->pending_line, ps->pending_len,
				       ps->pending_lineno);
		return 0;
	}
	ps->pending.hit = ps->frames[0];
	ps->pending.callchain = ps->frames;
	ps->pending.nr_callchain = ps->nr_frames;
	return emit(ps, &ps->pending);
}

static int frame_line(struct parser *ps, struct cursor c, int64_t lineno)
{
	struct ingest_frame f;
	uint64_t ip = 0;
	bool has_ip;
	if (!ps->has_pending || !parse_location(&c, &f, &ip, &has_ip)) {
		ps->st->nr_sample_lines++;
		ingest_stats__unparsed(ps->st, c.p, (size_t)(c.end - c.p), lineno);
		return 0;
	}
	/* `--call-graph dwarf` unwound with libdw: an inlined function is a frame
	 * of its own, "(inlined)" in place of the module, at the address of the
	 * real frame below it. Its inline chain is attribution's business (from
	 * the real frame's address): it is no call. */
	if (f.module_len == 7 && memcmp(f.module, "inlined", 7) == 0)
		return 0;
	/* A return address of 0 is never a caller: the frame-pointer walk read
	 * zeros from the stack of a module without frame pointers (as in
	 * perf_data.c's callchain()); the chain ends there. */
	if (ps->chain_ended || (has_ip && ip == 0 && ps->nr_frames > 0)) {
		ps->chain_ended = true;
		return 0;
	}
	complete_offset(ps, &f, ps->pending.pid, ip, has_ip, ps->pending.time_ns, true);
	if (xgrow((void **)&ps->frames, &ps->cap_frames, ps->nr_frames + 1, sizeof(*ps->frames)))
		return -ENOMEM;
	ps->frames[ps->nr_frames++] = f;
	return 0;
}

/* A line that does not start with a TAB: a sample header or a side-band event. */
static int header_line(struct parser *ps, struct cursor line, int64_t lineno)
{
	struct cursor c = line;
	struct prefix px;
	int rc = flush_pending(ps);
	if (rc)
		return rc;
	if (!parse_prefix(&c, &px))
		goto unparsed;
	skip_ws(&c);
	if (c.end - c.p >= 12 && memcmp(c.p, "PERF_RECORD_", 12) == 0) {
		rc = sideband(ps, c, px.time_ns);
		return rc < 0 ? rc : 0; /* an odd side-band line is not a sample line */
	}
	ps->st->nr_sample_lines++;
	struct ingest_sample s = {.comm = px.comm, .comm_len = px.comm_len, .pid = px.pid,
				  .tid = px.tid, .time_ns = px.time_ns};
	if (!parse_dec(&c, &s.period, NULL) || c.p >= c.end || !is_space(*c.p))
		goto unparsed_counted;
	skip_ws(&c);
	const char *ev = c.p;
	while (c.p < c.end && !is_space(*c.p))
		c.p++;
	if (c.p - ev < 2 || c.p[-1] != ':')
		goto unparsed_counted;
	s.event = ev;
	s.event_len = (size_t)(c.p - ev - 1);
	struct cursor rest = c;
	skip_ws(&rest);
	while (rest.p < rest.end && (*rest.p == '\r' || is_space(*rest.p)))
		rest.p++;
	if (rest.p == rest.end) { /* call-graph header: frames follow */
		ps->pending = s;
		ps->has_pending = true;
		ps->nr_frames = 0;
		ps->chain_ended = false;
		ps->pending_line = line.p;
		ps->pending_len = (size_t)(line.end - line.p);
		ps->pending_lineno = lineno;
		return 0;
	}
	uint64_t ip = 0;
	bool has_ip;
	if (!parse_location(&c, &s.hit, &ip, &has_ip))
		goto unparsed_counted;
	complete_offset(ps, &s.hit, s.pid, ip, has_ip, s.time_ns, false);
	return emit(ps, &s);
unparsed:
	ps->st->nr_sample_lines++;
unparsed_counted:
	ingest_stats__unparsed(ps->st, line.p, (size_t)(line.end - line.p), lineno);
	return 0;
}

int perf_script__parse(const char *buf, size_t len, perf_sample_fn fn, void *ctx,
		       struct ingest_stats *st, struct err *e)
{
	struct parser ps = {.fn = fn, .ctx = ctx, .st = st};
	int rc = 0;
	int64_t lineno = 0;
	for (size_t pos = 0; pos < len && !rc;) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		struct cursor c = {l, l + n};
		const char *q = l;
		while (q < c.end && (is_space(*q) || *q == '\r'))
			q++;
		if (q == c.end)
			rc = flush_pending(&ps);
		else if (l[0] == '\t')
			rc = frame_line(&ps, c, lineno);
		else
			rc = header_line(&ps, c, lineno);
	}
	if (!rc)
		rc = flush_pending(&ps);
	xfree(ps.frames);
	perf_maps__free(ps.maps);
	if (rc == -ENOMEM)
		return err_set(e, rc, ERR_OOM, "out of memory parsing perf script output");
	return rc;
}

/* The aggregator, and each thread's comm as its samples print it (the
 * last one wins: an exec or a prctl renames), compared only when the
 * thread or its comm changes from one sample to the next. */
struct script_sink {
	struct ingest_agg *agg;
	struct thread_names names;
	int64_t last_tid;
	size_t last_len;
	char last[16];
};

static int agg_sink(void *ctx, const struct ingest_sample *s)
{
	struct script_sink *k = ctx;
	if (s->comm && s->comm_len &&
	    (s->tid != k->last_tid || s->comm_len != k->last_len ||
	     memcmp(s->comm, k->last, s->comm_len))) {
		size_t n = s->comm_len < sizeof(k->last) ? s->comm_len : sizeof(k->last);
		if (thread_names__set(&k->names, s->tid, s->comm, n, s->time_ns))
			return -ENOMEM;
		k->last_tid = s->tid;
		k->last_len = n;
		memcpy(k->last, s->comm, n);
	}
	return ingest_agg__add(k->agg, s);
}

int ingest_stats__degrade(struct ingest_stats *st)
{
	char msg[512];
	if (st->nr_unparsed) {
		snprintf(msg, sizeof(msg), "%" PRIu64 " of %" PRIu64
			 " sample lines not recognized (first: %s)",
			 st->nr_unparsed, st->nr_sample_lines, st->first_unparsed);
		if (degradations__add(&st->degradations, DEG_PERF_SCRIPT_UNPARSED, msg,
				      DEG_PERF_SCRIPT_UNPARSED_REMEDY) < 0)
			return -ENOMEM;
	}
	if (st->nr_no_offset) {
		snprintf(msg, sizeof(msg), "%" PRIu64 " of %" PRIu64
			 " samples have no module offset (no mmap event covers them)",
			 st->nr_no_offset, st->nr_samples);
		if (degradations__add(&st->degradations, DEG_PERF_SCRIPT_NO_OFFSET, msg,
				      DEG_PERF_SCRIPT_NO_OFFSET_REMEDY) < 0)
			return -ENOMEM;
	}
	return 0;
}

int ingest_perf_script(const char *buf, size_t len, const struct ingest_opts *o,
		       struct pivot *p, struct ingest_stats *st, struct err *e)
{
	struct script_sink k = {.agg = ingest_agg__new(), .last_tid = -1};
	if (!k.agg)
		return err_oom(e);
	thread_names__init(&k.names);
	int rc = perf_script__parse(buf, len, agg_sink, &k, st, e);
	if (rc > 0 || (rc < 0 && rc != -ENOMEM))
		rc = err_set(e, rc > 0 ? -EIO : rc, ERR_INGEST_PERF_SCRIPT, "aggregation failed");
	if (!rc)
		rc = ingest_agg__emit(k.agg, o, p, e);
	if (!rc && thread_names__name_loci(&k.names, o->node, o->rank, p))
		rc = err_oom(e);
	if (!rc && ingest_stats__degrade(st))
		rc = err_oom(e);
	thread_names__release(&k.names);
	ingest_agg__free(k.agg);
	return rc;
}
