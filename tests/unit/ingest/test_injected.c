// SPDX-License-Identifier: BSD-3-Clause
// Samples in the libraries nunatak injects (ingest/injected.h): rewritten to
// pseudo-modules named after the call the application made, never the
// library or its internals; other samples untouched.
#include "harness.h"

#include <errno.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/injected.h"

#define PROBE "/nonexistent/cache/probes/0af3/libnunatak-mpi-v1.so"
#define APP "/home/u/solver"
#define SAMPLER TEST_BINARY_DIR "/lib/libscope_profiler.so"

static struct ingest_frame fr(const char *module, uint64_t offset)
{
	return (struct ingest_frame){.module = module, .module_len = strlen(module),
				     .offset = offset, .has_offset = true};
}

static bool is(const struct ingest_frame *f, const char *module)
{
	return f->module_len == strlen(module) && memcmp(f->module, module, f->module_len) == 0;
}

static void t_untouched(void)
{
	struct injected *c = injected__new();
	struct ingest_frame chain[] = {fr(APP, 0x10), fr("/usr/lib/libmpi.so.40", 0x20)};
	struct ingest_sample s = {.hit = chain[0], .callchain = chain, .nr_callchain = 2}, out;
	CHECK_INT(injected__rewrite(c, &s, &out), 0);
	injected__free(c);
}

/* A probe that cannot be read (another machine's cache): still hidden,
 * under the generic MPI name; its consecutive frames are one. */
static void t_probe_unreadable(void)
{
	struct injected *c = injected__new();
	struct ingest_frame chain[] = {fr(PROBE, 0x1230), fr(PROBE, 0x2000), fr(APP, 0x10)};
	struct ingest_sample s = {.hit = chain[0], .callchain = chain, .nr_callchain = 3}, out;
	CHECK_INT(injected__rewrite(c, &s, &out), 1);
	CHECK(is(&out.hit, "[mpi:MPI]") && !out.hit.has_offset);
	CHECK(out.nr_callchain == 2);
	CHECK(is(&out.callchain[0], "[mpi:MPI]") && is(&out.callchain[1], APP));
	CHECK(out.callchain[1].offset == 0x10 && out.callchain[1].has_offset);
	/* no call chain: the hit alone */
	struct ingest_sample h = {.hit = fr(PROBE, 0x1230)};
	CHECK_INT(injected__rewrite(c, &h, &out), 1);
	CHECK(is(&out.hit, "[mpi:MPI]"));
	injected__free(c);
}

/* nunatak's own executable, sampled before it execs the application (fg-exec,
 * the rank shim): collection, never a Hotspot; another module of that name
 * elsewhere is the application's. */
static void t_self(void)
{
	struct injected *c = injected__new_self("/opt/nunatak/bin/nunatak");
	struct ingest_frame chain[] = {fr("/opt/nunatak/bin/nunatak", 0x1234),
				       fr("/opt/nunatak/bin/nunatak", 0x40), fr(APP, 0x10)};
	struct ingest_sample s = {.hit = chain[0], .callchain = chain, .nr_callchain = 3}, out;
	CHECK_INT(injected__rewrite(c, &s, &out), 1);
	CHECK(is(&out.hit, "[collection:overhead]") && !out.hit.has_offset);
	CHECK(out.nr_callchain == 2 && is(&out.callchain[0], "[collection:overhead]") &&
	      is(&out.callchain[1], APP));
	struct ingest_sample other = {.hit = fr("/home/u/nunatak", 0x10)};
	CHECK_INT(injected__rewrite(c, &other, &out), 0);
	injected__free(c);
	/* a test binary is not nunatak: its own frames are left alone */
	c = injected__new();
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	struct ingest_sample mine = {.hit = fr(exe, 0x10)};
	CHECK_INT(injected__rewrite(c, &mine, &out), 0);
	injected__free(c);
}

/* The file offset of a function of a readable ELF, found by name. */
static bool offset_of(const struct elf_info *elf, bool (*want)(const char *), uint64_t *off,
		      const char **name)
{
	for (size_t i = 0; i < elf->nr_funcs; i++) {
		if (!want(elf->funcs[i].name))
			continue;
		for (size_t k = 0; k < elf->nr_loads; k++) {
			const struct elf_segment *g = &elf->loads[k];
			uint64_t v = elf->funcs[i].start + 1;
			if (v >= g->vaddr && v - g->vaddr < g->filesz) {
				*off = v - g->vaddr + g->offset;
				*name = elf->funcs[i].name;
				return true;
			}
		}
	}
	return false;
}

static bool public_fn(const char *n)
{
	return strncmp(n, "sp_", 3) == 0;
}

static bool internal_fn(const char *n)
{
	return strncmp(n, "sp_", 3) != 0 && strncmp(n, "__", 2) != 0 && n[0] != '_';
}

/* The preload library read for real: its public entry point names the
 * frame, an internal function takes the entry point further out. */
static void t_preload_real(void)
{
	struct elf_info elf;
	struct err e = {0};
	CHECK_INT(elf_info__read(&elf, SAMPLER, ELF_READ_SYMBOLS, &e), 0);
	uint64_t pub = 0, in = 0;
	const char *pname = NULL, *iname = NULL;
	CHECK(offset_of(&elf, public_fn, &pub, &pname));
	CHECK(offset_of(&elf, internal_fn, &in, &iname));
	char want[128];
	snprintf(want, sizeof(want), "[collection:%s]", pname);
	struct injected *c = injected__new();
	struct ingest_frame chain[] = {fr(SAMPLER, in), fr(SAMPLER, pub), fr(APP, 0x10)};
	struct ingest_sample s = {.hit = chain[0], .callchain = chain, .nr_callchain = 3}, out;
	CHECK_INT(injected__rewrite(c, &s, &out), 1);
	CHECK(out.nr_callchain == 2);
	CHECK(is(&out.hit, want));
	CHECK(is(&out.callchain[0], want) && is(&out.callchain[1], APP));
	/* an internal function with no entry point outside: overhead */
	struct ingest_sample h = {.hit = fr(SAMPLER, in)};
	CHECK_INT(injected__rewrite(c, &h, &out), 1);
	CHECK(is(&out.hit, "[collection:overhead]"));
	injected__free(c);
	elf_info__release(&elf);
}

static void t_pseudo_names(void)
{
	char n[64];
	CHECK(injected_pseudo_name("[mpi:MPI_Test]", n, sizeof(n)));
	CHECK_STR(n, "MPI_Test");
	CHECK(injected_pseudo_name("[collection:overhead]", n, sizeof(n)));
	CHECK_STR(n, "collection overhead");
	CHECK(injected_pseudo_name("[collection:sp_begin]", n, sizeof(n)));
	CHECK_STR(n, "sp_begin");
	CHECK(!injected_pseudo_name("[kernel.kallsyms]", n, sizeof(n)));
	CHECK(!injected_pseudo_name(APP, n, sizeof(n)));
	CHECK(injected_is_pseudo("[mpi:MPI]") && !injected_is_pseudo("[vdso]"));
}

/* Through the aggregator, two ranks into one pivot: one named Hotspot, the
 * probe's frames named in the stacks, nothing left under the probe's path. */
static void t_aggregated(void)
{
	struct pivot p;
	pivot__init(&p);
	for (int rank = 0; rank < 2; rank++) {
		struct ingest_agg *a = ingest_agg__new();
		struct ingest_frame chain[] = {fr(PROBE, 0x1230), fr(APP, 0x10)};
		struct ingest_sample s = {.pid = 7, .tid = 7, .period = 1000, .event = "task-clock",
					  .event_len = 10, .hit = chain[0], .callchain = chain,
					  .nr_callchain = 2};
		CHECK_INT(ingest_agg__add(a, &s), 0);
		struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = rank};
		CHECK_INT(ingest_agg__emit(a, &o, &p, NULL), 0);
		ingest_agg__free(a);
	}
	CHECK_INT(p.nr_hotspots, 1);
	CHECK_STR(p.hotspots[0].module, "[mpi:MPI]");
	CHECK_STR(p.hotspots[0].name, "MPI");
	CHECK(p.hotspots[0].level == RESOLUTION_SYMBOL && !p.hotspots[0].has_offset);
	CHECK_INT(p.nr_stack_frames, 4);
	for (size_t i = 0; i < p.nr_stack_frames; i++)
		CHECK(strstr(p.stack_frames[i].module, "libnunatak") == NULL);
	CHECK_STR(p.stack_frames[0].function, "MPI");
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"aggregated", "two ranks' probe samples: one named Hotspot, named stack frames",
	 t_aggregated},
	{"untouched", "a sample with no injected frame is left as it is", t_untouched},
	{"self", "nunatak's own executable is collection overhead", t_self},
	{"probe_unreadable", "an unreadable probe hidden as [mpi:MPI], its frames one",
	 t_probe_unreadable},
	{"preload_real", "the preload library: entry point names the frame, internals fold in",
	 t_preload_real},
	{"pseudo_names", "pseudo-module to name", t_pseudo_names},
};

TEST_MAIN(cases)
