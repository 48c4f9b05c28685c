// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/perf_stat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"

#define MAX_FIELDS 8

static const char UNSUPPORTED_REASON[] = "counter not supported on this node";

/* Splits a line on ','; returns the number of fields (at most MAX_FIELDS). */
static int split(const char *l, size_t n, const char *f[], size_t fl[])
{
	int k = 0;
	size_t start = 0;
	for (size_t i = 0; i <= n && k < MAX_FIELDS; i++)
		if (i == n || l[i] == ',') {
			f[k] = l + start;
			fl[k] = i - start;
			k++;
			start = i + 1;
		}
	return k;
}

static bool field_is(const char *f, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(f, lit, n) == 0;
}

/* A decimal number filling the whole field. */
static bool parse_number(const char *f, size_t n, double *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, f, n);
	tmp[n] = '\0';
	char *end;
	*out = strtod(tmp, &end);
	return end == tmp + n && (tmp[0] == '-' || tmp[0] == '.' || (tmp[0] >= '0' && tmp[0] <= '9'));
}

struct stat_run {
	const struct ingest_opts *o;
	struct pivot *p;
	struct ingest_stats *st;
	int64_t locus;
	int counted, unavailable;
	char missing[200]; /* names of unavailable counters, for the message */
};

static int add_line(struct stat_run *r, const char *l, size_t n, int64_t lineno)
{
	const char *f[MAX_FIELDS];
	size_t fl[MAX_FIELDS];
	int k = split(l, n, f, fl);
	double v = 0, cov = -1;
	bool unavailable = k >= 3 && (field_is(f[0], fl[0], "<not supported>") ||
				      field_is(f[0], fl[0], "<not counted>"));
	r->st->nr_sample_lines++;
	if (k < 3 || fl[2] == 0 || (!unavailable && !parse_number(f[0], fl[0], &v))) {
		ingest_stats__unparsed(r->st, l, n, lineno);
		return 0;
	}
	if (k >= 5 && parse_number(f[4], fl[4], &cov))
		cov /= 100.0;
	else
		cov = -1;
	char canon[128];
	struct counter_info ci;
	ingest_counter_canon(f[2], fl[2], canon, sizeof(canon), &ci);
	const char *unit = ci.unit ? ci.unit : canon;
	if (field_is(f[1], fl[1], "msec")) {
		v *= 1e6;
		unit = "ns";
	} else if (field_is(f[1], fl[1], "ns")) { /* duration_time */
		unit = "ns";
	} else {
		v *= ci.scale;
	}
	struct measurement m = {.hotspot = PIVOT_NONE, .locus = r->locus,
				.pass_index = r->o->pass_index, .counter = canon,
				.value = unavailable ? 0 : v, .unit = (char *)unit,
				.quality = unavailable ? QUALITY_UNAVAILABLE : ci.quality,
				.reason = (char *)(unavailable ? UNSUPPORTED_REASON : ci.reason),
				.sample_count = -1, .coverage = unavailable ? -1 : cov};
	/* Multiplexed (the counter ran for part of the run, perf scaled it up):
	 * an estimate, never silently measured (issue 24). */
	char mux[320];
	if (!unavailable && cov >= 0 && cov < 0.9995) {
		snprintf(mux, sizeof(mux), "%s%smultiplexed: counted %.1f%% of the run, scaled up "
			 "by perf", ci.reason ? ci.reason : "", ci.reason ? "; " : "", 100 * cov);
		m.quality = quality__worst(m.quality, QUALITY_ESTIMATED);
		m.reason = mux;
	}
	if (pivot__add_measurement(r->p, &m) < 0)
		return -ENOMEM;
	if (unavailable) {
		size_t used = strlen(r->missing);
		snprintf(r->missing + used, sizeof(r->missing) - used, "%s%s",
			 r->unavailable ? ", " : "", canon);
		r->unavailable++;
	} else {
		r->counted++;
	}
	return 0;
}

static int degrade(struct stat_run *r)
{
	char msg[512];
	struct degradations *d = &r->st->degradations;
	int rc = 0;
	if (r->counted == 0) {
		snprintf(msg, sizeof(msg), "%s",
			 r->unavailable ? "no counter could be counted on this node"
					: "perf stat produced no counts");
		rc = degradations__add(d, DEG_COUNTING_UNAVAILABLE, msg,
				       DEG_COUNTING_UNAVAILABLE_REMEDY);
	} else if (r->unavailable) {
		snprintf(msg, sizeof(msg), "not counted on this node: %s", r->missing);
		rc = degradations__add(d, DEG_COUNTING_INCOMPLETE, msg,
				       DEG_COUNTING_INCOMPLETE_REMEDY);
	}
	if (rc >= 0 && r->st->nr_unparsed) {
		snprintf(msg, sizeof(msg), "%" PRIu64 " of %" PRIu64
			 " perf stat lines not recognized (first: %s)",
			 r->st->nr_unparsed, r->st->nr_sample_lines, r->st->first_unparsed);
		rc = degradations__add(d, DEG_PERF_STAT_UNPARSED, msg,
				       DEG_PERF_STAT_UNPARSED_REMEDY);
	}
	return rc < 0 ? rc : 0;
}

int ingest_perf_stat(const char *buf, size_t len, const struct ingest_opts *o,
		     struct pivot *p, struct ingest_stats *st, struct err *e)
{
	struct stat_run r = {.o = o, .p = p, .st = st, .locus = -1};
	int64_t lineno = 0;
	for (size_t pos = 0; pos < len;) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
			n--;
		if (n == 0 || l[0] == '#')
			continue;
		if (r.locus < 0 && (r.locus = pivot__intern_locus(p, o->node, o->rank, -1)) < 0)
			goto nomem;
		if (add_line(&r, l, n, lineno))
			goto nomem;
	}
	if (degrade(&r))
		goto nomem;
	return r.counted;
nomem:
	return err_set(e, -ENOMEM, ERR_OOM, "out of memory reading perf stat output");
}
