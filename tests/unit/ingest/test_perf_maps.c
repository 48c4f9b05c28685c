// SPDX-License-Identifier: BSD-3-Clause
// perf_maps__find against the rule it implements (perf_maps.h), checked by
// brute force over every map: among the maps of the pid covering ip, the
// latest one mapped at or before the sample's time, else the earliest
// covering one. Many overlapping maps (a rank maps ~150 modules, dlopen
// re-maps over old ranges), lookups interleaved with adds (perf script's
// text form) so that both the sorted index and the maps added after it are
// searched, forks, and the kernel's maps after their end fix-up.
#include "harness.h"

#include <stdint.h>

#include "ingest/perf_maps.h"

struct ref_map {
	uint64_t start, end, time;
	char path[32];
};

struct ref {
	struct ref_map v[2048];
	size_t n;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* The rule, by brute force: index order is time order here (adds in time
 * order, as perf writes them within a round). */
static const struct ref_map *ref_find(const struct ref *r, uint64_t ip, uint64_t time)
{
	const struct ref_map *fallback = NULL;
	for (size_t i = r->n; i-- > 0;) {
		const struct ref_map *c = &r->v[i];
		if (ip < c->start || ip >= c->end)
			continue;
		if (c->time <= time)
			return c;
		fallback = c;
	}
	return fallback;
}

static void add(struct perf_maps *m, struct ref *r, int64_t pid, uint64_t start, uint64_t len,
		uint64_t time)
{
	struct ref_map *c = &r->v[r->n];
	*c = (struct ref_map){.start = start, .end = start + len, .time = time};
	snprintf(c->path, sizeof(c->path), "/lib/m%zu.so", r->n);
	CHECK_INT(perf_maps__add(m, pid, start, len, 0, time, c->path, strlen(c->path)), 0);
	r->n++;
}

static void check_lookup(struct perf_maps *m, const struct ref *r, int64_t pid, uint64_t ip,
			 uint64_t time)
{
	const struct ref_map *want = ref_find(r, ip, time);
	const struct perf_map *got = perf_maps__find(m, pid, ip, time);
	if (!want) {
		CHECK(got == NULL);
		return;
	}
	CHECK(got != NULL);
	CHECK_STR(got->path, want->path);
	CHECK_INT(got->start, want->start);
	CHECK_INT(got->time, want->time);
}

/* An address near the maps (inside, at an edge, or between them). */
static uint64_t some_ip(const struct ref *r)
{
	if (r->n == 0 || rnd(8) == 0)
		return 0x400000 + rnd(0x800000);
	const struct ref_map *c = &r->v[rnd(r->n)];
	switch (rnd(4)) {
	case 0:
		return c->start;
	case 1:
		return c->end - 1;
	case 2:
		return c->end; /* just past it */
	default:
		return c->start + rnd(c->end - c->start);
	}
}

static void t_random_overlaps(void)
{
	for (int round = 0; round < 20; round++) {
		struct perf_maps *m = perf_maps__new();
		static struct ref r;
		r.n = 0;
		CHECK(m != NULL);
		uint64_t t = 1000;
		size_t nr = 1 + rnd(600);
		for (size_t i = 0; i < nr; i++) {
			/* small maps in a narrow range overlap often; some large
			 * ones span many */
			uint64_t start = 0x400000 + rnd(0x100) * 0x8000;
			uint64_t len = rnd(10) == 0 ? 0x200000 + rnd(0x200000) : 0x1000 + rnd(0x20000);
			t += rnd(3) * 100; /* equal times too */
			add(m, &r, 7, start, len, t);
			/* lookups between the adds, at times before, at and after
			 * the maps' own */
			for (int k = 0, nk = (int)rnd(4); k < nk; k++)
				check_lookup(m, &r, 7, some_ip(&r), rnd(t + 400));
		}
		for (int k = 0; k < 4000; k++)
			check_lookup(m, &r, 7, some_ip(&r), k % 3 ? rnd(t + 400) : UINT64_MAX);
		/* a pid with no maps, and one never seen */
		CHECK(perf_maps__find(m, 8, 0x400000, UINT64_MAX) == NULL);
		perf_maps__free(m);
	}
}

/* The child's maps are the parent's at the fork, looked up as its own. */
static void t_fork(void)
{
	struct perf_maps *m = perf_maps__new();
	static struct ref r;
	r.n = 0;
	for (size_t i = 0; i < 200; i++)
		add(m, &r, 7, 0x400000 + i * 0x10000, 0x10000, 100 + i);
	CHECK_INT(perf_maps__fork(m, 9, 7, 1000), 0);
	for (size_t i = 0; i < 200; i++) {
		const struct perf_map *got = perf_maps__find(m, 9, 0x400000 + i * 0x10000 + 5, 2000);
		CHECK(got != NULL);
		CHECK_STR(got->path, r.v[i].path);
		check_lookup(m, &r, 7, 0x400000 + i * 0x10000 + 5, 2000);
	}
	CHECK(perf_maps__find(m, 9, 0x400000 + 200 * 0x10000, 2000) == NULL);
	perf_maps__free(m);
}

/* Kernel maps: each ends where the next starts after the fix-up, the last
 * at 2^64-1, whatever order they came in; many modules above the kernel. */
static void t_kernel_fixup(void)
{
	struct perf_maps *m = perf_maps__new();
	char names[120][24];
	for (int i = 119; i >= 0; i--) {
		snprintf(names[i], sizeof(names[i]), i ? "[mod%d]" : "[kernel.kallsyms]_text", i);
		uint64_t start = i ? 0xffffffffc0000000ull + (uint64_t)i * 0x100000
				   : 0xffffffff81000000ull;
		CHECK_INT(perf_maps__add(m, PERF_MAPS_KERNEL_PID, start, 0x1000, 0, 0, names[i],
					 strlen(names[i])),
			  0);
	}
	/* a lookup before the fix-up indexes the maps as they came */
	CHECK(perf_maps__find(m, PERF_MAPS_KERNEL_PID, 0xffffffff81000500ull, UINT64_MAX) != NULL);
	perf_maps__fixup_kernel(m);
	for (int i = 0; i < 120; i++) {
		uint64_t start = i ? 0xffffffffc0000000ull + (uint64_t)i * 0x100000
				   : 0xffffffff81000000ull;
		/* past the map's own length: the fix-up extended it */
		const struct perf_map *got =
			perf_maps__find(m, PERF_MAPS_KERNEL_PID, start + 0x5000, UINT64_MAX);
		CHECK(got != NULL);
		CHECK_STR(got->path, names[i]);
	}
	const struct perf_map *last =
		perf_maps__find(m, PERF_MAPS_KERNEL_PID, UINT64_MAX - 1, UINT64_MAX);
	CHECK(last != NULL);
	CHECK_STR(last->path, names[119]);
	CHECK(perf_maps__find(m, PERF_MAPS_KERNEL_PID, 0x1000, UINT64_MAX) == NULL);
	perf_maps__free(m);
}

static const struct test_case cases[] = {
	{"random_overlaps", "lookups match the rule by brute force, adds interleaved",
	 t_random_overlaps},
	{"fork", "a forked child finds its parent's maps", t_fork},
	{"kernel_fixup", "kernel maps after the end fix-up, 120 modules", t_kernel_fixup},
};

TEST_MAIN(cases)
