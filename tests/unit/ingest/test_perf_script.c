// SPDX-License-Identifier: BSD-3-Clause
// perf script text -> pivot, on the real corpus bytes and on hand-made variants.
// Expected sample counts and period sums were computed independently with a
// Python regex over the same files (see docs/ingest.md "Corpus figures").
#include "harness.h"
#include "test_perf_util.h"

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "ingest/perf_script.h"
#include "model/model.h"

struct corpus_case {
	const char *file;
	uint64_t samples;
	int nr_hotspots;
	const char *counter;
	double total;
	const char *modules; /* distinct Hotspot modules, sorted, ';'-joined */
};

#define LDSO "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

static const struct corpus_case corpus[] = {
	{"workload-c/invocations/005.stdout", 1421, 9, "cycles", 4505806504.0,
	 "/tmp/nunatak-capture/workload;" LDSO ";[unknown]"},
	{"workload-c-calibrated/invocations/010.stdout", 215, 6, "cycles", 636853386.0,
	 "/tmp/nunatak-capture-full/workload;" LDSO ";[unknown]"},
	{"workload-c-clang/invocations/004.stdout", 414, 11, "cycles", 1264680317.0,
	 "/tmp/nunatak-capture-clang/workload;" LDSO ";[unknown]"},
	{"workload-c-debug/invocations/004.stdout", 216, 5, "cycles", 634930931.0,
	 "/tmp/nunatak-capture-debug/workload;" LDSO ";[unknown]"},
	{"workload-c-multipass/invocations/019.stdout", 371, 5, "flops", 524999895.0,
	 "/tmp/nunatak-capture-mp/workload;" LDSO},
	{"workload-c-multipass/invocations/022.stdout", 373, 6, "task-clock", 268806412.0,
	 "/tmp/nunatak-capture-mp/workload;" LDSO},
	{"workload-c-roofline/invocations/010.stdout", 2880, 12, "dram_bytes",
	 (29200876.0 + 3300099.0) * 64, "/tmp/nunatak-capture-roofline/workload;[unknown]"},
	{"workload-c-stacks/invocations/019.stdout", 373, 5, "task-clock", 268806412.0,
	 "/tmp/nunatak-capture-stacks/workload;" LDSO},
};

static const struct ingest_opts opts = {.sz = sizeof(opts), .node = "n1", .rank = -1};

static double sum_counter(const struct pivot *p, const char *counter, int64_t *samples)
{
	double v = 0;
	*samples = 0;
	for (size_t i = 0; i < p->nr_measurements; i++)
		if (!strcmp(p->measurements[i].counter, counter)) {
			v += p->measurements[i].value;
			*samples += p->measurements[i].sample_count;
		}
	return v;
}

static void t_corpus(void)
{
	for (size_t k = 0; k < sizeof(corpus) / sizeof(corpus[0]); k++) {
		char path[512];
		size_t len;
		snprintf(path, sizeof(path), "%s%s", CORPUS_PERF, corpus[k].file);
		char *buf = slurp(path, &len);
		if (!buf)
			FAIL_INPUT("corpus not found");
		struct pivot p;
		pivot__init(&p);
		struct ingest_stats st = {0};
		struct err e = {0};
		CHECK_INT(ingest_perf_script(buf, len, &opts, &p, &st, &e), 0);
		if (st.nr_unparsed)
			fprintf(stderr, "%s: first unparsed: %s\n", path, st.first_unparsed);
		CHECK_INT(st.nr_unparsed, 0);
		CHECK_INT(st.nr_no_offset, 0);
		CHECK_INT(st.degradations.n, 0);
		CHECK_INT(st.nr_samples, corpus[k].samples);
		CHECK_INT(p.nr_hotspots, corpus[k].nr_hotspots);
		int64_t n;
		CHECK_NEAR(sum_counter(&p, corpus[k].counter, &n), corpus[k].total, 0.5);
		/* addresses are the same values summed over Loci */
		double av = 0;
		for (size_t i = 0; i < p.nr_addresses; i++)
			if (!strcmp(p.addresses[i].counter, corpus[k].counter))
				av += p.addresses[i].value;
		CHECK_NEAR(av, corpus[k].total, 0.5);
		char mods[512] = "";
		for (size_t i = 0; i < p.nr_hotspots; i++) /* hotspots come sorted by module */
			if (i == 0 || strcmp(p.hotspots[i - 1].module, p.hotspots[i].module))
				snprintf(mods + strlen(mods), sizeof(mods) - strlen(mods), "%s%s",
					 i ? ";" : "", p.hotspots[i].module);
		CHECK_STR(mods, corpus[k].modules);
		for (size_t i = 0; i < p.nr_hotspots; i++) {
			const struct hotspot *h = &p.hotspots[i];
			CHECK(h->level == RESOLUTION_UNRESOLVED && h->name == NULL);
			CHECK(h->has_offset == (h->module[0] == '/'));
		}
		pivot__release(&p);
		ingest_stats__release(&st);
		free(buf);
	}
}

static int64_t find_hotspot(const struct pivot *p, const char *module, uint64_t off)
{
	for (size_t i = 0; i < p->nr_hotspots; i++)
		if (!strcmp(p->hotspots[i].module, module) && p->hotspots[i].offset == off &&
		    p->hotspots[i].has_offset)
			return (int64_t)i;
	return -1;
}

static void t_flat_units_and_buildid(void)
{
	size_t len, blen;
	char *buf = slurp(CORPUS_PERF "workload-c-roofline/invocations/010.stdout", &len);
	char *bl = slurp(CORPUS_PERF "workload-c-roofline/invocations/011.stdout", &blen);
	if (!buf || !bl)
		FAIL_INPUT("corpus not found");
	struct buildid_list ids;
	buildid_list__init(&ids);
	CHECK_INT(buildid_list__parse(&ids, bl, blen, NULL), 0);
	CHECK_INT(ids.nr_bad_lines, 0);
	struct ingest_opts o = opts;
	o.build_ids = &ids;
	o.pass_index = 2;
	o.rank = 3;
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(buf, len, &o, &p, &st, NULL), 0);
	int64_t h = find_hotspot(&p, "/tmp/nunatak-capture-roofline/workload", 0x1166);
	CHECK(h >= 0);
	CHECK(p.hotspots[h].build_id != NULL);
	CHECK_INT(strlen(p.hotspots[h].build_id), 40);
	bool saw_dram = false, saw_flops = false, saw_time = false;
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		CHECK_INT(m->pass_index, 2);
		CHECK_INT(p.loci[m->locus].rank, 3);
		CHECK_STR(p.loci[m->locus].node, "n1");
		CHECK_INT(p.loci[m->locus].thread, 2513340);
		if (!strcmp(m->counter, "dram_bytes")) {
			saw_dram = true;
			CHECK_STR(m->unit, "byte");
			CHECK(m->quality == QUALITY_ESTIMATED);
			CHECK_STR(m->reason,
				  "demand fills only: hardware-prefetched traffic is not counted");
		} else if (!strcmp(m->counter, "flops")) {
			saw_flops = true;
			CHECK_STR(m->unit, "flop");
			CHECK(m->quality == QUALITY_MEASURED && m->reason == NULL);
		} else if (!strcmp(m->counter, "task-clock")) {
			saw_time = true;
			CHECK_STR(m->unit, "ns");
		}
	}
	CHECK(saw_dram && saw_flops && saw_time);
	/* every [unknown] sample aggregates into one offset-less Hotspot */
	int unknown = 0;
	for (size_t i = 0; i < p.nr_hotspots; i++)
		if (!strcmp(p.hotspots[i].module, "[unknown]")) {
			unknown++;
			CHECK(!p.hotspots[i].has_offset);
		}
	CHECK_INT(unknown, 1);
	pivot__release(&p);
	ingest_stats__release(&st);
	buildid_list__release(&ids);
	free(buf);
	free(bl);
}

static void t_stacks(void)
{
	size_t len;
	char *buf = slurp(CORPUS_PERF "workload-c-stacks/invocations/019.stdout", &len);
	if (!buf)
		FAIL_INPUT("corpus not found");
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(buf, len, &opts, &p, &st, NULL), 0);
	CHECK(p.nr_stacks > 0);
	int64_t total = 0;
	bool found = false;
	for (size_t i = 0; i < p.nr_stacks; i++)
		total += p.stacks[i].sample_count;
	CHECK_INT(total, 373);
	/* main+0xf4 <- __libc_start_call_main <- __libc_start_main <- _start */
	for (size_t i = 0; i + 3 < p.nr_stack_frames; i++) {
		const struct stack_frame *f = &p.stack_frames[i];
		if (f->depth == 0 && f->offset == 0x11b4 &&
		    !strcmp(f->module, "/tmp/nunatak-capture-stacks/workload") &&
		    !strcmp(p.stacks[f->stack].counter, "flops")) {
			CHECK_INT(f[1].stack, f->stack);
			CHECK_INT(f[1].depth, 1);
			CHECK_STR(f[1].module, "/usr/lib/x86_64-linux-gnu/libc.so.6");
			CHECK_INT(f[1].offset, 0x2a578);
			CHECK_INT(f[3].offset, 0x1225);
			found = true;
		}
	}
	CHECK(found);
	pivot__release(&p);
	ingest_stats__release(&st);
	free(buf);
}

/* perf 6.1 shape: no dsoff; offsets come from the mmap side-band lines. */
static const char v61[] =
	"         swapper     0/0         0.000000: PERF_RECORD_MMAP -1/0: "
	"[0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
	"        ing_spin 13879/13879   406.298301: PERF_RECORD_MMAP2 13879/13879: "
	"[0x559695c13000(0x1000) @ 0x1000 fe:00 10952787 837906299]: r-xp /tmp/ing spin\n"
	"        ing_spin 13879/13879   406.298333: PERF_RECORD_MMAP2 13879/13879: "
	"[0x7ff3847f8000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]\n"
	"        ing_spin 13879/13879   406.299301:    1003009 task-clock:      559695c1317d "
	"main+0x34 (/tmp/ing spin)\n"
	"        ing_spin 13879/13879   406.300284:    1003009 task-clock:      559695c13181 "
	"(/tmp/ing spin)\n"
	"        ing_spin 13879/13879   406.300300:    1003009 task-clock:      7ff3847f8010 "
	"__vdso_clock_gettime+0x10 ([vdso])\n"
	"        ing_spin 13879/13879   406.300400:    1003009 task-clock:  ffffffff81a00000 "
	"asm_exc_page_fault+0x0 ([kernel.kallsyms])\n"
	"        ing_spin 13879/13879   406.301000: PERF_RECORD_FORK(13880:13880):(13879:13879)\n"
	"           child 13880/13880   406.302000:    1003009 task-clock:      559695c13181 "
	"main+0x38 (/tmp/ing spin)\n";

static void t_perf61_offsets(void)
{
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(v61, sizeof(v61) - 1, &opts, &p, &st, NULL), 0);
	CHECK_INT(st.nr_unparsed, 0);
	CHECK_INT(st.nr_no_offset, 0);
	CHECK_INT(st.nr_samples, 5);
	CHECK(find_hotspot(&p, "/tmp/ing spin", 0x117d) >= 0);
	int64_t h = find_hotspot(&p, "/tmp/ing spin", 0x1181);
	CHECK(h >= 0);
	int n181 = 0;
	for (size_t i = 0; i < p.nr_measurements; i++)
		if (p.measurements[i].hotspot == h)
			n181++;
	CHECK_INT(n181, 2); /* tid 13879 and the forked child 13880 */
	for (size_t i = 0; i < p.nr_hotspots; i++)
		if (p.hotspots[i].module[0] == '[' && strcmp(p.hotspots[i].module, "[kernel.kallsyms]"))
			CHECK(!p.hotspots[i].has_offset);
	/* the kernel keeps ip - _text (the @ pgoff of its mmap event), never the ip */
	CHECK(find_hotspot(&p, "[kernel.kallsyms]", 0xa00000) >= 0);
	pivot__release(&p);
	ingest_stats__release(&st);
}

/* perf 6.1, --call-graph dwarf unwound with libdw: "(inlined)" frames. */
static const char dwarf61[] =
	"        callers 27743/27743  1439.200742: PERF_RECORD_MMAP2 27743/27743: "
	"[0x560f7b113000(0x1000) @ 0x1000 fe:00 10955255 252700632]: r-xp /tmp/pl/callers\n"
	"        callers 27743/27743  1439.201057: PERF_RECORD_MMAP2 27743/27743: "
	"[0x7fa14e1cf000(0x156000) @ 0x26000 fe:00 332835 0]: r-xp /usr/lib/libc.so.6\n"
	"callers 27743/27743  1439.255459:   10309278 task-clock: \n"
	"\t            1173 leaf+0x2a (/tmp/pl/callers)\n"
	"\t            11a8 caller_a+0x22 (/tmp/pl/callers)\n"
	"\t           27249 __libc_start_call_main+0x79 (/usr/lib/libc.so.6)\n"
	"\t           27304 __libc_start_main_impl+0x84 (inlined)\n"
	"\t            1080 _start+0x20 (/tmp/pl/callers)\n"
	"\n";

static void t_dwarf_inlined(void)
{
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(dwarf61, sizeof(dwarf61) - 1, &opts, &p, &st, NULL), 0);
	CHECK_INT(st.nr_unparsed, 0);
	CHECK_INT(st.nr_no_offset, 0);
	CHECK_INT(p.nr_stacks, 1);
	CHECK_INT(p.nr_stack_frames, 4); /* the (inlined) frame is no call */
	for (size_t i = 0; i < p.nr_stack_frames; i++)
		CHECK(strcmp(p.stack_frames[i].module, "inlined") != 0);
	pivot__release(&p);
	ingest_stats__release(&st);
}

/* A frame-pointer walk through a module without frame pointers reads zeros
 * from the stack: perf prints them as frames at address 0, up to its cap.
 * The chain ends at the first; nothing after it is a caller. */
static const char zero_chain[] =
	"        callers 27743/27743  1439.200742: PERF_RECORD_MMAP2 27743/27743: "
	"[0x560f7b113000(0x1000) @ 0x1000 fe:00 10955255 252700632]: r-xp /tmp/pl/callers\n"
	"callers 27743/27743  1439.255459:   10309278 task-clock: \n"
	"\t            1173 leaf+0x2a (/tmp/pl/callers)\n"
	"\t            11a8 caller_a+0x22 (/tmp/pl/callers)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\t               0 [unknown] ([unknown])\n"
	"\t            1080 _start+0x20 (/tmp/pl/callers)\n"
	"\n";

static void t_zero_return(void)
{
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(zero_chain, sizeof(zero_chain) - 1, &opts, &p, &st, NULL), 0);
	CHECK_INT(p.nr_stacks, 1);
	CHECK_INT(p.nr_stack_frames, 2); /* leaf <- caller_a, then the chain ends */
	for (size_t i = 0; i < p.nr_stack_frames; i++)
		CHECK(strcmp(p.stack_frames[i].module, "[unknown]") != 0);
	pivot__release(&p);
	ingest_stats__release(&st);
}

static void t_no_mmap_events(void)
{
	const char txt[] = "a 1/1 1.000000: 10 task-clock: 5555 main+0x1 (/bin/x)\n";
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(txt, sizeof(txt) - 1, &opts, &p, &st, NULL), 0);
	CHECK_INT(st.nr_no_offset, 1);
	CHECK_INT(st.degradations.n, 1);
	CHECK_STR(st.degradations.v[0].name, "perf-script-no-offset");
	CHECK(!p.hotspots[0].has_offset);
	pivot__release(&p);
	ingest_stats__release(&st);
}

static void t_unparsed_and_shapes(void)
{
	const char txt[] =
		"my comm 7/8 1.5: 3 cycles:u: 10 operator()(int) (/usr/lib/libstdc++.so.6+0x10)\n"
		"garbage line\n"
		"x 7/8 2.000001: 4 cycles:u: \n"
		"\n"
		"x 7/8 2.000002: 5 cycles:u: \n"
		"\t    10 f+0x1 (/bin/y+0x20)\n"
		"\t    11 g+0x2 (/bin/y+0x30)\n"
		"\n"
		"\tstray frame (/bin/z+0x1)\n";
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_script(txt, sizeof(txt) - 1, &opts, &p, &st, NULL), 0);
	CHECK_INT(st.nr_samples, 2);
	CHECK_INT(st.nr_unparsed, 3);
	CHECK_INT(st.first_unparsed_line, 2);
	CHECK_STR(st.first_unparsed, "garbage line");
	CHECK_INT(st.degradations.n, 1);
	CHECK_STR(st.degradations.v[0].name, "perf-script-unparsed");
	CHECK_STR(st.degradations.v[0].message,
		  "3 of 5 sample lines not recognized (first: garbage line)");
	CHECK(find_hotspot(&p, "/usr/lib/libstdc++.so.6", 0x10) >= 0);
	CHECK(find_hotspot(&p, "/bin/y", 0x20) >= 0);
	CHECK_INT(p.nr_stacks, 1);
	CHECK_INT(p.nr_stack_frames, 2);
	CHECK_INT(p.stack_frames[1].offset, 0x30);
	CHECK_INT(p.loci[p.measurements[0].locus].thread, 8);
	pivot__release(&p);
	ingest_stats__release(&st);
}

static void t_canon(void)
{
	char out[64];
	struct counter_info ci;
	const char *ev = "fp_ret_sse_avx_ops.all/period=4999999/u";
	ingest_counter_canon(ev, strlen(ev), out, sizeof(out), &ci);
	CHECK_STR(out, "flops");
	CHECK_STR(ci.unit, "flop");
	ev = "ls_dmnd_fills_from_sys.mem_io_remote/period=100003/";
	ingest_counter_canon(ev, strlen(ev), out, sizeof(out), &ci);
	CHECK_STR(out, "dram_bytes");
	CHECK_NEAR(ci.scale, 64, 0);
	ingest_counter_canon("cycles:Pu", 9, out, sizeof(out), &ci);
	CHECK_STR(out, "cycles");
	CHECK(ci.unit == NULL);
	ingest_counter_canon("cpu-clock:u", 11, out, sizeof(out), &ci);
	CHECK_STR(ci.unit, "ns");
}

/* Two passes into one pivot share Hotspots; the order is deterministic. */
static void t_merge_and_order(void)
{
	size_t l1, l2;
	char *b1 = slurp(CORPUS_PERF "workload-c-multipass/invocations/019.stdout", &l1);
	char *b2 = slurp(CORPUS_PERF "workload-c-multipass/invocations/022.stdout", &l2);
	if (!b1 || !b2)
		FAIL_INPUT("corpus not found");
	struct pivot p, q;
	pivot__init(&p);
	pivot__init(&q);
	struct ingest_stats st = {0};
	struct ingest_opts o = opts;
	CHECK_INT(ingest_perf_script(b1, l1, &o, &p, &st, NULL), 0);
	size_t h1 = p.nr_hotspots;
	o.pass_index = 1;
	CHECK_INT(ingest_perf_script(b2, l2, &o, &p, &st, NULL), 0);
	CHECK(p.nr_hotspots < h1 + 6); /* shared ones reused */
	CHECK_INT(p.nr_loci, 2); /* each pass is its own process */
	CHECK_INT(ingest_perf_script(b1, l1, &opts, &q, &st, NULL), 0);
	for (size_t i = 0; i < h1; i++) {
		CHECK_STR(p.hotspots[i].module, q.hotspots[i].module);
		CHECK_INT(p.hotspots[i].offset, q.hotspots[i].offset);
	}
	for (size_t i = 1; i < q.nr_hotspots; i++) {
		int c = strcmp(q.hotspots[i - 1].module, q.hotspots[i].module);
		CHECK(c < 0 || (c == 0 && q.hotspots[i - 1].offset < q.hotspots[i].offset));
	}
	pivot__release(&p);
	pivot__release(&q);
	ingest_stats__release(&st);
	free(b1);
	free(b2);
}

static const struct test_case cases[] = {
	{"corpus", "every corpus perf script parses fully, sums match", t_corpus},
	{"flat_units_buildid", "units, quality, Locus and build-id on roofline", t_flat_units_and_buildid},
	{"stacks", "call-graph form: stacks and frames, innermost first", t_stacks},
	{"perf61_offsets", "perf < 6.4: offsets from mmap events, fork inherits", t_perf61_offsets},
	{"dwarf_inlined", "libdw's (inlined) frames are not calls", t_dwarf_inlined},
	{"zero_return", "a frame at address 0 ends the chain", t_zero_return},
	{"no_mmap_events", "no dsoff and no mmap events: degradation", t_no_mmap_events},
	{"unparsed_shapes", "unparsed lines counted, rpartition, odd comm", t_unparsed_and_shapes},
	{"canon", "counter canonicalization table", t_canon},
	{"merge_order", "passes share Hotspots; deterministic order", t_merge_and_order},
};

TEST_MAIN(cases)
