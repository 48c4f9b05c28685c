// SPDX-License-Identifier: BSD-3-Clause
/* The preload sampler's .sps as Measurements: module offsets through the
 * module's own PT_LOAD (this test binary), task-clock at 1/hz each,
 * estimated with its reason, one Locus per process (thread -1). */
#include "harness.h"

#define TMPDIR_TAG "sps_ingest"
#include "tmpdir.h"

#include <errno.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "common/err.h"
#include "ingest/sps_ingest.h"
#include "model/model.h"
#include "regions/trace_bytes.h"

#define LOAD 0x555555554000ull

static void t_offset_pure(void)
{
	struct elf_segment segs[2] = {{.vaddr = 0, .offset = 0, .filesz = 0x1000, .memsz = 0x1000},
				      {.vaddr = 0x401000, .offset = 0x1000, .filesz = 0x2000,
				       .memsz = 0x2000}};
	struct elf_info exec = {.type = ELF_TYPE_EXEC, .loads = segs, .nr_loads = 2};
	uint64_t off = 0;
	/* a non-PIE executable: the address is its link-time vaddr */
	CHECK_INT(sps_module_offset(&exec, 0x401234, 0x400000, &off), 0);
	CHECK(off == 0x1234);
	struct elf_segment dseg = {.vaddr = 0x2000, .offset = 0x1000, .filesz = 0x800,
				   .memsz = 0x800};
	struct elf_info dyn = {.type = ELF_TYPE_DYN, .loads = &dseg, .nr_loads = 1};
	CHECK_INT(sps_module_offset(&dyn, LOAD + 0x2010, LOAD, &off), 0);
	CHECK(off == 0x1010); /* vaddr 0x2010 lies 0x10 into a segment at file 0x1000 */
	CHECK_INT(sps_module_offset(&dyn, LOAD + 0x9000, LOAD, &off), -ENOENT);
	CHECK_INT(sps_module_offset(NULL, LOAD + 0x42, LOAD, &off), 0);
	CHECK(off == 0x42);
}

static const struct elf_segment *exec_segment(const struct elf_info *e)
{
	for (size_t i = 0; i < e->nr_loads; i++)
		if (e->loads[i].flags & 1)
			return &e->loads[i];
	return NULL;
}

static void t_ingest(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	self[n] = '\0';
	struct elf_info elf;
	CHECK_INT(elf_info__read(&elf, self, 0, NULL), 0);
	const struct elf_segment *x = exec_segment(&elf);
	CHECK(x != NULL);
	uint64_t base = elf.type == ELF_TYPE_EXEC ? 0 : LOAD;
	uint64_t a1 = base + x->vaddr + 0x10, a2 = base + x->vaddr + 0x80;
	struct tb t = {0};
	tb_raw(&t, "SCOPESMP", 8);
	tb_i32(&t, 1);
	tb_i32(&t, 0);
	tb_i32(&t, 250); /* achieved rate */
	tb_i64(&t, 11);
	tb_i32(&t, 0);   /* no regions */
	tb_i32(&t, 1);
	tb_str(&t, self);
	tb_i64(&t, (int64_t)base);
	tb_i64(&t, 11);
	for (int i = 0; i < 11; i++) {
		tb_i32(&t, -1);
		tb_i32(&t, i == 10 ? -1 : 0);
		tb_i64(&t, (int64_t)(i < 7 ? a1 : a2));
	}
	char *dir = tmpdir();
	char path[4200];
	snprintf(path, sizeof(path), "%s/app_rank00000.sps", dir);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(t.b, 1, t.n, f) == t.n);
	fclose(f);
	struct pivot p;
	pivot__init(&p);
	struct ingest_opts o = {.sz = sizeof(o), .node = "n1", .rank = 3};
	struct sps_ingest_info info;
	struct err e = {0};
	const char *paths[] = {path};
	CHECK_INT(ingest_sps_files(paths, 1, &o, &p, &info, &e), 0);
	CHECK_INT(info.samples, 11);
	CHECK_INT(info.outside, 1);
	CHECK_INT(info.hz_min, 250);
	CHECK_NEAR(info.cpu_s, 11.0 / 250, 1e-9);
	uint64_t want1 = x->offset + 0x10, want2 = x->offset + 0x80;
	double v1 = 0, v2 = 0;
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		if (m->hotspot < 0)
			continue;
		CHECK_STR(m->counter, "task-clock");
		CHECK_INT(m->quality, QUALITY_ESTIMATED);
		CHECK_STR(m->reason, SPS_TIME_REASON);
		CHECK_INT(p.loci[m->locus].rank, 3);
		CHECK_INT(p.loci[m->locus].thread, -1);
		const struct hotspot *h = &p.hotspots[m->hotspot];
		if (h->has_offset && h->offset == want1)
			v1 = m->value;
		if (h->has_offset && h->offset == want2)
			v2 = m->value;
	}
	CHECK_NEAR(v1, 7 * 4e6, 1);
	CHECK_NEAR(v2, 3 * 4e6, 1);
	for (size_t i = 0; i < p.nr_hotspots; i++) /* a build-id from the module itself */
		if (p.hotspots[i].has_offset && elf.build_id)
			CHECK_STR(p.hotspots[i].build_id, elf.build_id);
	pivot__release(&p);
	elf_info__release(&elf);
	/* a file with samples but no achieved rate has no time base */
	t.n = 0;
	tb_raw(&t, "SCOPESMP", 8);
	tb_i32(&t, 1);
	tb_i32(&t, 0);
	tb_i32(&t, 0);
	tb_i64(&t, 1);
	tb_i32(&t, 0);
	tb_i32(&t, 0);
	tb_i64(&t, 1);
	tb_i32(&t, -1);
	tb_i32(&t, -1);
	tb_i64(&t, 5);
	f = fopen(path, "wb");
	CHECK(f && fwrite(t.b, 1, t.n, f) == t.n);
	fclose(f);
	pivot__init(&p);
	CHECK(ingest_sps_files(paths, 1, &o, &p, &info, &e) < 0);
	CHECK_STR(e.code, "trace.corrupt");
	CHECK(strstr(e.msg, "no time base") != NULL);
	pivot__release(&p);
	free(t.b);
	done();
}

static const struct test_case cases[] = {
	{"offset_pure", "absolute address -> module file offset via PT_LOAD", t_offset_pure},
	{"ingest", ".sps samples -> task-clock Measurements, estimated", t_ingest},
};
TEST_MAIN(cases)
