// SPDX-License-Identifier: BSD-3-Clause
/* Distinct addresses attributed per second through llvm-symbolizer (one
 * process per module, two over halves at once for a module of >= 8192). The module is this benchmark's own executable (built
 * -g, so every address resolves at line level through DWARF); addresses are
 * spread evenly over its FUNC symbols. Baseline, measured in the same run:
 * the bare llvm-symbolizer invocation on the same addresses; the ratio is
 * what nunatak adds (JSON parsing, extent checks, fusion, frames, views). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/elf.h"
#include "tools/locate.h"
#include "attrib/views.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "model/model.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	size_t want = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	struct err e = {0};
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	if (!x || attrib_locate(x, NULL, NULL, &t, &e) || t.tool != ATTRIB_TOOL_LLVM) {
		printf("bench_attrib: no llvm-symbolizer, nothing measured\n");
		return 0;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	struct elf_info elf;
	if (elf_info__read(&elf, exe, ELF_READ_SYMBOLS, &e)) {
		printf("bench_attrib: %s\n", e.msg);
		return 0;
	}
	uint64_t span = 0;
	for (size_t i = 0; i < elf.nr_funcs; i++)
		span += elf.funcs[i].size;
	uint64_t step = span / want ? span / want : 1;
	struct pivot p;
	pivot__init(&p);
	pivot__intern_locus(&p, "bench", -1, 1);
	uint64_t *addrs = xcalloc(want + elf.nr_funcs, sizeof(*addrs));
	size_t nr = 0;
	for (size_t i = 0; i < elf.nr_funcs && nr < want; i++)
		for (uint64_t a = elf.funcs[i].start; a < elf.funcs[i].start + elf.funcs[i].size && nr < want;
		     a += step) {
			struct hotspot h = {.module = exe, .level = RESOLUTION_UNRESOLVED, .has_offset = true};
			uint64_t off = a; /* vaddr -> file offset through the PT_LOAD */
			for (size_t s = 0; s < elf.nr_loads; s++)
				if (a >= elf.loads[s].vaddr && a - elf.loads[s].vaddr < elf.loads[s].filesz)
					off = a - elf.loads[s].vaddr + elf.loads[s].offset;
			h.offset = off;
			struct measurement m = {.hotspot = pivot__add_hotspot(&p, &h), .locus = 0,
						.counter = (char *)"task-clock", .value = 1000,
						.unit = (char *)"ns", .sample_count = 1, .coverage = -1};
			pivot__add_measurement(&p, &m);
			addrs[nr++] = a;
		}
	/* baseline: the bare symbolizer on the same addresses */
	const char **av = xcalloc(nr + 4, sizeof(*av));
	char *hex = xmalloc(nr * 20), *obj = xasprintf("--obj=%s", exe);
	av[0] = t.path;
	av[1] = "--output-style=JSON";
	av[2] = obj;
	for (size_t i = 0; i < nr; i++) {
		snprintf(hex + 20 * i, 20, "0x%" PRIx64, addrs[i]);
		av[3 + i] = hex + 20 * i;
	}
	struct exec_request req = {.argv = av, .capture_stdout = true, .capture_stderr = true};
	struct exec_result res = {0};
	double t0 = now();
	executor__run(x, &req, &res, &e);
	double base = now() - t0;
	exec_result__release(&res);
	/* the same addresses on stdin, as attribution feeds large batches */
	char *lines = xmalloc(nr * 20 + 1);
	size_t len = 0;
	for (size_t i = 0; i < nr; i++)
		len += (size_t)sprintf(lines + len, "0x%" PRIx64 "\n", addrs[i]);
	av[3] = NULL;
	req.stdin_data = lines;
	req.stdin_len = len;
	t0 = now();
	executor__run(x, &req, &res, &e);
	double base_stdin = now() - t0;
	exec_result__release(&res);
	/* the two halves on stdin at once, as attribution splits a large
	 * module (SPLIT_ADDRS in attrib/tool_calls.c) */
	size_t half = 0;
	for (size_t i = 0, nl = 0; i < len && nl < nr / 2; i++)
		if (lines[i] == '\n' && ++nl == nr / 2)
			half = i + 1;
	struct exec_request two[2] = {req, req};
	two[0].stdin_len = half;
	two[1].stdin_data = lines + half;
	two[1].stdin_len = len - half;
	struct exec_result tres[2];
	t0 = now();
	executor__run_batch(x, two, 2, tres, &e);
	double base_two = now() - t0;
	exec_result__release(&tres[0]);
	exec_result__release(&tres[1]);
	xfree(lines);

	struct degradations d = {0};
	struct attrib_opts o = {.no_source = true};
	t0 = now();
	int rc = attrib_run(&p, x, &t, &o, &d, &e);
	double full = now() - t0;
	t0 = now();
	struct attrib_share *v;
	size_t nv;
	attrib_inline_view(&p, NULL, &v, &nv);
	double views = now() - t0;
	xfree(v);
	printf("bench_attrib: %zu distinct addresses, LLVM %d, %zu Hotspots after fusion, rc=%d\n", nr,
	       t.major, p.nr_hotspots, rc);
	printf("  llvm-symbolizer alone     %8.3f s  %10.0f addresses/s (baseline)\n", base, nr / base);
	printf("  llvm-symbolizer, stdin    %8.3f s  %10.0f addresses/s\n", base_stdin,
	       nr / base_stdin);
	printf("  llvm-symbolizer, 2 halves %8.3f s  %10.0f addresses/s (stdin, concurrently)\n",
	       base_two, nr / base_two);
	printf("  attribution (nunatak)     %8.3f s  %10.0f addresses/s  ratio %.2fx baseline, "
	       "%.2fx the stdin call, %.2fx the 2 halves\n", full, nr / full, full / base,
	       full / base_stdin, full / base_two);
	printf("  transverse inline view    %8.3f s\n", views);
	xfree(av);
	xfree(hex);
	xfree(obj);
	xfree(addrs);
	degradations__release(&d);
	pivot__release(&p);
	elf_info__release(&elf);
	attrib_tools__release(&t);
	executor__free(x);
	return 0;
}
