/* SPDX-License-Identifier: BSD-3-Clause */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_format.h"
#include "tmpname.h"
#include "counters.h"
#include "trace.h"

char *sp_writer__path(const char *prefix, int rank, const char *suffix)
{
	size_t len = strlen(prefix) + strlen(suffix) + 32;
	char *p = malloc(len);
	if (p)
		snprintf(p, len, "%s_rank%05d%s", prefix, rank, suffix);
	return p;
}

static void put_str(struct sp_out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	sp_out__i32(o, (int32_t)n);
	sp_out__put(o, s ? s : "", n);
}

static void put_region(struct sp_out *o, const struct sp_region_out *r, int version)
{
	put_str(o, r->name);
	put_str(o, r->file);
	sp_out__i32(o, r->file ? r->line : -1);
	sp_out__i64(o, (int64_t)r->nr_calls);
	for (size_t i = 0; i < r->nr_calls; i++)
		sp_out__i64(o, r->calls[i].start_ns);
	for (size_t i = 0; i < r->nr_calls; i++)
		sp_out__i64(o, r->calls[i].end_ns);
	if (version >= 3)
		for (size_t i = 0; i < r->nr_calls; i++)
			sp_out__i32(o, r->calls[i].lane);
}

static size_t str_len(const char *s)
{
	return 4 + (s ? strlen(s) : 0);
}

static size_t timing_len(const struct sp_trace *tr)
{
	return 4 * 8 + 8 + tr->nr_lanes * 24;
}

static void put_timing(struct sp_out *o, const struct sp_trace *tr)
{
	sp_out__i32(o, (int32_t)SP_EXT_TIMING);
	sp_out__i32(o, (int32_t)timing_len(tr));
	sp_out__i64(o, tr->init_ns);
	sp_out__i64(o, tr->finalize_ns);
	sp_out__i64(o, tr->init_real_ns);
	sp_out__i64(o, tr->start_ns);
	sp_out__i32(o, (int32_t)tr->nr_lanes);
	sp_out__i32(o, 0);
	for (size_t l = 0; l < tr->nr_lanes; l++) {
		sp_out__i64(o, tr->lanes[l].first_ns);
		sp_out__i64(o, tr->lanes[l].last_ns);
		sp_out__i64(o, tr->lanes[l].cpu_ns);
	}
}

static size_t misuse_len(const struct sp_trace *tr, int *kinds)
{
	size_t len = 4;
	*kinds = 0;
	for (int k = 0; k < SP_MISUSE_KIND_NR; k++) {
		const struct sp_misuse_out *m = &tr->misuse[k];
		if (!m->count)
			continue;
		(*kinds)++;
		len += 4 + 4 + 8 + 4;
		for (size_t i = 0; i < m->nr_names; i++)
			len += str_len(m->names[i]) + 8;
	}
	return len;
}

static void put_misuse(struct sp_out *o, const struct sp_trace *tr)
{
	int kinds;
	size_t len = misuse_len(tr, &kinds);
	sp_out__i32(o, (int32_t)SP_EXT_MISUSE);
	sp_out__i32(o, (int32_t)len);
	sp_out__i32(o, kinds);
	for (int k = 0; k < SP_MISUSE_KIND_NR; k++) {
		const struct sp_misuse_out *m = &tr->misuse[k];
		if (!m->count)
			continue;
		sp_out__i32(o, k);
		sp_out__i32(o, 0);
		sp_out__i64(o, (int64_t)m->count);
		sp_out__i32(o, (int32_t)m->nr_names);
		for (size_t i = 0; i < m->nr_names; i++) {
			put_str(o, m->names[i]);
			sp_out__i64(o, (int64_t)m->counts[i]);
		}
	}
}

static size_t counters_len(const struct sp_trace *tr)
{
	size_t len = str_len(tr->ctr_backend) + 4 + 4 + 8 + 8 + 8;
	for (int e = 0; e < tr->nr_ctr_events; e++)
		len += str_len(tr->ctr_events[e].name) + 8 +
		       str_len(tr->ctr_events[e].counted ? NULL : tr->ctr_events[e].reason);
	return len + tr->nr_ctr_rows * (16 + (size_t)tr->nr_ctr_counted * 16);
}

static void put_counters(struct sp_out *o, const struct sp_trace *tr)
{
	sp_out__i32(o, (int32_t)SP_EXT_COUNTERS);
	sp_out__i32(o, (int32_t)counters_len(tr));
	put_str(o, tr->ctr_backend);
	sp_out__i32(o, tr->nr_ctr_events);
	sp_out__i32(o, 0);
	sp_out__i64(o, (int64_t)tr->ctr_threads_without);
	sp_out__i64(o, (int64_t)tr->ctr_dropped);
	for (int e = 0; e < tr->nr_ctr_events; e++) {
		const struct sp_ctr_event *ev = &tr->ctr_events[e];
		put_str(o, ev->name);
		sp_out__i32(o, ev->kind);
		sp_out__i32(o, ev->counted ? 0 : 1);
		put_str(o, ev->counted ? NULL : ev->reason);
	}
	sp_out__i64(o, (int64_t)tr->nr_ctr_rows);
	for (size_t i = 0; i < tr->nr_ctr_rows; i++) {
		const struct sp_ctr_row_out *r = &tr->ctr_rows[i];
		sp_out__i32(o, r->region);
		sp_out__i32(o, r->lane);
		sp_out__u64(o, r->calls);
		for (int k = 0; k < tr->nr_ctr_counted; k++) {
			sp_out__u64(o, r->incl[k]);
			sp_out__u64(o, r->excl[k]);
		}
	}
}

/* 'CCAL': every call's counts, in sections of at most SP_CCAL_CHUNK calls. */
static uint64_t calls_of(const struct sp_trace *tr)
{
	uint64_t n = 0;
	for (size_t r = 0; r < tr->nr_regions; r++)
		n += tr->regions[r].nr_calls;
	return n;
}

static bool with_call_counts(const struct sp_trace *tr)
{
	return tr->nr_ctr_counted > 0 && tr->ctr_src && calls_of(tr) > 0;
}

static size_t call_counts_len(const struct sp_trace *tr)
{
	uint64_t n = calls_of(tr), sections = (n + SP_CCAL_CHUNK - 1) / SP_CCAL_CHUNK;
	return (size_t)(sections * (8 + 16) + n * (16 + (uint64_t)tr->nr_ctr_counted * 8));
}

struct ccal {
	struct sp_out *o;
	const struct sp_trace *tr;
	uint64_t done, total;
};

static void ccal_entry(struct ccal *c, int32_t region, int32_t lane, int64_t start,
		       const int64_t *vals)
{
	int nc = c->tr->nr_ctr_counted;
	if (c->done % SP_CCAL_CHUNK == 0) {
		uint64_t left = c->total - c->done, k = left < SP_CCAL_CHUNK ? left : SP_CCAL_CHUNK;
		sp_out__i32(c->o, (int32_t)SP_EXT_CALL_COUNTERS);
		sp_out__i32(c->o, (int32_t)(16 + k * (16 + (uint64_t)nc * 8)));
		sp_out__i32(c->o, SP_CCAL_VERSION);
		sp_out__i32(c->o, nc);
		sp_out__i64(c->o, (int64_t)k);
	}
	sp_out__i32(c->o, region);
	sp_out__i32(c->o, lane);
	sp_out__i64(c->o, start);
	for (int k = 0; k < nc; k++)
		sp_out__i64(c->o, vals ? vals[k] : SP_CTR_NONE);
	c->done++;
}

static int ccal_call(void *ctx, int32_t region, int32_t lane, int64_t start_ns,
		     const int64_t *vals)
{
	struct ccal *c = ctx;
	if (c->done == c->total)
		return -EIO; /* more than counted: cannot happen (each region is bounded) */
	ccal_entry(c, region, lane, start_ns, vals);
	return 0;
}

static void put_call_counts(struct sp_out *o, const struct sp_trace *tr)
{
	struct ccal c = {o, tr, 0, calls_of(tr)};
	uint64_t seen;
	sp_trace__each_call_counts(tr, ccal_call, &c, &seen);
	/* The length was announced: calls the file no longer holds are padding
	 * entries (region -1) that readers skip. */
	while (c.done < c.total)
		ccal_entry(&c, -1, -1, 0, NULL);
}

/* After the seed's last field: readers of the seed's layout stop before it. */
static void put_extension(struct sp_out *o, const struct sp_trace *tr)
{
	int kinds;
	size_t mlen = misuse_len(tr, &kinds);
	size_t total = 8 + timing_len(tr) + (kinds ? 8 + mlen : 0) +
		       (tr->nr_ctr_events ? 8 + counters_len(tr) : 0) +
		       (with_call_counts(tr) ? call_counts_len(tr) : 0);
	sp_out__put(o, SP_EXT_MAGIC, 8);
	sp_out__i64(o, (int64_t)total);
	put_timing(o, tr);
	if (kinds)
		put_misuse(o, tr);
	if (tr->nr_ctr_events)
		put_counters(o, tr);
	if (with_call_counts(tr))
		put_call_counts(o, tr);
}

int sp_writer__spt(const struct sp_trace *tr, const char *path)
{
	struct sp_out *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	int version = tr->nr_lanes > 1 ? SP_SPT_VERSION_LANES : SP_SPT_VERSION_LOC;
	if (sp_out__open(o, path) == 0) {
		sp_out__put(o, SP_SPT_MAGIC, SP_MAGIC_LEN);
		sp_out__i32(o, version);
		sp_out__i32(o, tr->rank);
		sp_out__i64(o, (int64_t)tr->nr_regions);
		if (tr->src)
			sp_writer__regions_streamed(o, tr, version);
		for (size_t r = 0; !tr->src && r < tr->nr_regions; r++)
			put_region(o, &tr->regions[r], version);
		if (version >= 3) {
			sp_out__i32(o, (int32_t)tr->nr_lanes);
			for (size_t l = 0; l < tr->nr_lanes; l++) {
				sp_out__i64(o, tr->lanes[l].tid);
				put_str(o, tr->lanes[l].name);
			}
		}
		if (tr->extension)
			put_extension(o, tr);
	}
	int rc = sp_out__commit(o);
	free(o);
	return rc;
}

int sp_writer__sps(const struct sp_trace *tr, const char *path)
{
	struct sp_out *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	if (sp_out__open(o, path) == 0) {
		sp_out__put(o, SP_SPS_MAGIC, SP_MAGIC_LEN);
		sp_out__i32(o, SP_SPS_VERSION);
		sp_out__i32(o, tr->rank);
		/* The achieved rate, rounded: never the requested one. */
		sp_out__i32(o, (int32_t)(tr->stats.effective_hz + 0.5));
		sp_out__i64(o, (int64_t)tr->stats.ticks);
		sp_out__i32(o, (int32_t)tr->nr_regions);
		for (size_t r = 0; r < tr->nr_regions; r++)
			put_str(o, tr->regions[r].name);
		sp_out__i32(o, (int32_t)tr->nr_modules);
		for (size_t m = 0; m < tr->nr_modules; m++) {
			put_str(o, tr->modules[m].path);
			sp_out__u64(o, tr->modules[m].base);
		}
		sp_out__i64(o, (int64_t)tr->nr_samples);
		for (size_t s = 0; s < tr->nr_samples; s++) {
			sp_out__i32(o, tr->sample_region[s]);
			sp_out__i32(o, tr->sample_module[s]);
			sp_out__u64(o, tr->sample_addr[s]);
			sp_out__i32(o, tr->sample_weight[s]);
		}
	}
	int rc = sp_out__commit(o);
	free(o);
	return rc;
}
