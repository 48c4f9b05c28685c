// SPDX-License-Identifier: BSD-3-Clause
// The aggregator on synthetic samples: keys, scale, merging of canonical
// counters, address rows over Loci, stacks, build-ids.
#include "harness.h"

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "model/model.h"

#define LCL "ls_refills_from_sys.ls_mabresp_lcl_dram/period=100003/u"
#define RMT "ls_refills_from_sys.ls_mabresp_rmt_dram/period=100003/u"

static struct ingest_frame fr(const char *m, uint64_t off)
{
	return (struct ingest_frame){.module = m, .module_len = strlen(m), .offset = off,
				     .has_offset = m[0] == '/'};
}

static int add(struct ingest_agg *a, int64_t tid, const char *ev, uint64_t period,
	       struct ingest_frame hit, const struct ingest_frame *cc, size_t n)
{
	struct ingest_sample s = {.pid = 1, .tid = tid, .period = period, .event = ev,
				  .event_len = strlen(ev), .hit = hit, .callchain = cc,
				  .nr_callchain = n};
	return ingest_agg__add(a, &s);
}

static void t_keys_and_scale(void)
{
	struct ingest_agg *a = ingest_agg__new();
	CHECK(a != NULL);
	struct ingest_frame cc[2] = {fr("/bin/app", 0x10), fr("/lib/libc.so", 0x20)};
	CHECK_INT(add(a, 7, LCL, 100003, cc[0], cc, 2), 0);
	CHECK_INT(add(a, 7, RMT, 100003, cc[0], cc, 2), 0);
	CHECK_INT(add(a, 8, LCL, 100003, cc[0], cc, 2), 0);
	CHECK_INT(add(a, 7, "task-clock", 1000, fr("[unknown]", 0x999), NULL, 0), 0);
	CHECK_INT(add(a, 7, "task-clock", 3000, fr("[unknown]", 0x111), NULL, 0), 0);
	CHECK_INT(ingest_agg__nr_samples(a), 5);
	struct buildid_list ids;
	buildid_list__init(&ids);
	CHECK_INT(buildid_list__add(&ids, "/bin/app", 8, "ABCD", 4), 0);
	struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = 2, .pass_index = 1,
				.build_ids = &ids};
	struct pivot p;
	pivot__init(&p);
	CHECK_INT(ingest_agg__emit(a, &o, &p, NULL), 0);
	CHECK_INT(p.nr_hotspots, 2); /* /bin/app+0x10 and one offset-less [unknown] */
	CHECK_STR(p.hotspots[0].module, "/bin/app");
	CHECK_STR(p.hotspots[0].build_id, "abcd");
	CHECK(!p.hotspots[1].has_offset && p.hotspots[1].build_id == NULL);
	CHECK_INT(p.nr_loci, 2);
	CHECK_INT(p.nr_measurements, 3); /* dram_bytes x tid 7, 8; task-clock tid 7 */
	const struct measurement *m = &p.measurements[0];
	CHECK_STR(m->counter, "dram_bytes");
	CHECK_INT(p.loci[m->locus].thread, 7);
	CHECK_NEAR(m->value, 2 * 100003 * 64.0, 0);
	CHECK_INT(m->sample_count, 2);
	CHECK_INT(m->pass_index, 1);
	CHECK_INT(p.loci[m->locus].rank, 2);
	CHECK_NEAR(p.measurements[2].value, 4000, 0);
	CHECK_INT(p.nr_addresses, 2);
	CHECK_NEAR(p.addresses[0].value, 3 * 100003 * 64.0, 0); /* summed over Loci */
	CHECK_INT(p.addresses[0].sample_count, 3);
	CHECK_INT(p.addresses[0].offset, 0x10);
	CHECK_INT(p.nr_stacks, 2); /* same frames, two tids */
	CHECK_INT(p.stacks[0].sample_count, 2);
	CHECK_NEAR(p.stacks[0].value, 2 * 100003 * 64.0, 0);
	CHECK_STR(p.stacks[0].unit, "byte");
	CHECK_INT(p.nr_stack_frames, 4);
	CHECK_STR(p.stack_frames[1].module, "/lib/libc.so");
	CHECK_INT(p.stack_frames[1].depth, 1);
	pivot__release(&p);
	buildid_list__release(&ids);
	ingest_agg__free(a);
}

/* Many distinct keys: the tables grow and every key keeps its own sum. */
static void t_growth(void)
{
	struct ingest_agg *a = ingest_agg__new();
	char mod[32];
	for (int i = 0; i < 20000; i++) {
		snprintf(mod, sizeof(mod), "/m%d", i % 37);
		CHECK_INT(add(a, i % 5, "cycles", (uint64_t)i + 1, fr(mod, (uint64_t)i), NULL, 0), 0);
	}
	struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = -1};
	struct pivot p;
	pivot__init(&p);
	CHECK_INT(ingest_agg__emit(a, &o, &p, NULL), 0);
	CHECK_INT(p.nr_measurements, 20000);
	CHECK_INT(p.nr_hotspots, 20000);
	double sum = 0;
	for (size_t i = 0; i < p.nr_measurements; i++)
		sum += p.measurements[i].value;
	CHECK_NEAR(sum, 20000.0 * 20001.0 / 2, 0);
	pivot__release(&p);
	ingest_agg__free(a);
}

/* Two ranks ingested into one pivot: shared Hotspot, two Loci, address rows
 * summed over both (they are per Hotspot, never per Locus). */
static void t_ranks_share_addresses(void)
{
	struct pivot p;
	pivot__init(&p);
	for (int rank = 0; rank < 2; rank++) {
		struct ingest_agg *a = ingest_agg__new();
		CHECK_INT(add(a, 100, "task-clock", 10, fr("/bin/app", 0x40), NULL, 0), 0);
		struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = rank};
		CHECK_INT(ingest_agg__emit(a, &o, &p, NULL), 0);
		ingest_agg__free(a);
	}
	CHECK_INT(p.nr_hotspots, 1);
	CHECK_INT(p.nr_loci, 2);
	CHECK_INT(p.nr_measurements, 2);
	CHECK_INT(p.nr_addresses, 1);
	CHECK_NEAR(p.addresses[0].value, 20, 0);
	CHECK_INT(p.addresses[0].sample_count, 2);
	pivot__release(&p);
}

/* A caller that writes each sample's module names into the same buffers (a
 * line buffer) gets each name's own entry: module ids are remembered by the
 * caller's address only with the bytes there compared. Frames, hits and
 * the previous-entry shortcut alternate between names of one length. */
static void t_reused_buffer(void)
{
	struct ingest_agg *a = ingest_agg__new();
	CHECK(a != NULL);
	static const char *const names[] = {"/lib/aaa.so", "/lib/bbb.so", "/lib/ccc.so"};
	char hit[16], f1[16];
	for (int i = 0; i < 300; i++) {
		strcpy(hit, names[i % 3]);
		strcpy(f1, names[(i / 3) % 3]);
		struct ingest_frame cc[2] = {fr(hit, 0x40), fr(f1, 0x80)};
		CHECK_INT(add(a, 5, "task-clock", 10, cc[0], cc, 2), 0);
	}
	struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = -1};
	struct pivot p;
	pivot__init(&p);
	CHECK_INT(ingest_agg__emit(a, &o, &p, NULL), 0);
	CHECK_INT(p.nr_measurements, 3);
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		CHECK_STR(p.hotspots[m->hotspot].module, names[i]); /* sorted by module */
		CHECK_INT(m->sample_count, 100);
		CHECK_NEAR(m->value, 1000, 0);
	}
	CHECK_INT(p.nr_stacks, 9); /* every (hit, caller) pair */
	CHECK_INT(p.nr_stack_frames, 18);
	int depth_seen[9] = {0};
	for (size_t i = 0; i < p.nr_stack_frames; i++) {
		const struct stack_frame *f = &p.stack_frames[i];
		CHECK(f->stack >= 0 && f->stack < 9 && f->depth >= 0 && f->depth < 2);
		depth_seen[f->stack] |= 1 << f->depth;
		int k = -1;
		for (int j = 0; j < 3; j++)
			if (strcmp(f->module, names[j]) == 0)
				k = j;
		CHECK(k >= 0);
		CHECK_INT(f->offset, f->depth ? 0x80 : 0x40);
		if (f->depth == 1) /* caller c: 33 samples, 34 for c == 0 (i = 297..299) */
			CHECK_INT(p.stacks[f->stack].sample_count, 33 + (k == 0));
	}
	for (int i = 0; i < 9; i++)
		CHECK_INT(depth_seen[i], 3);
	pivot__release(&p);
	ingest_agg__free(a);
}

static const struct test_case cases[] = {
	{"ranks_share_addresses", "per-rank calls: one Hotspot, addresses over Loci", t_ranks_share_addresses},
	{"keys_and_scale", "key, scale, dram merge, addresses, stacks, build-id", t_keys_and_scale},
	{"growth", "20000 distinct keys through table growth", t_growth},
	{"reused_buffer", "module names rewritten in one buffer: each its own entry", t_reused_buffer},
};

TEST_MAIN(cases)
