/* SPDX-License-Identifier: BSD-3-Clause */
#include "modules.h"

#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

static char *exe_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return strdup("[exe]");
	buf[n] = 0;
	return strdup(buf);
}

static int add_range(struct sp_modules *m, uint64_t lo, uint64_t hi, int32_t mod)
{
	if (m->nr_ranges == m->cap_ranges) {
		size_t cap = m->cap_ranges ? m->cap_ranges * 2 : 64;
		struct sp_range *r = realloc(m->ranges, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		m->ranges = r;
		m->cap_ranges = cap;
	}
	m->ranges[m->nr_ranges++] = (struct sp_range){lo, hi, mod};
	return 0;
}

static int on_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct sp_modules *m = ctx;
	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 32;
		struct sp_module_out *p = realloc(m->mods, cap * sizeof(*p));
		if (!p)
			return -1;
		m->mods = p;
		m->cap = cap;
	}
	/* The first object is the executable, which glibc reports as "". */
	const char *name = info->dlpi_name;
	char *path = (name && name[0]) ? strdup(name) : (m->nr == 0 ? exe_path() : NULL);
	if (!path)
		return name && name[0] ? -1 : 0;
	int32_t idx = (int32_t)m->nr;
	m->mods[m->nr].path = path;
	m->mods[m->nr].base = (uint64_t)info->dlpi_addr;
	m->nr++;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (add_range(m, lo, lo + ph->p_memsz, idx) < 0)
			return -1;
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sp_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int sp_modules__load(struct sp_modules *m)
{
	memset(m, 0, sizeof(*m));
	if (dl_iterate_phdr(on_object, m) != 0) {
		sp_modules__exit(m);
		return -ENOMEM;
	}
	if (m->nr_ranges)
		qsort(m->ranges, m->nr_ranges, sizeof(*m->ranges), cmp_range);
	return 0;
}

int32_t sp_modules__find(const struct sp_modules *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr_ranges;
	while (lo < hi) { /* first range with lo > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (m->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct sp_range *r = &m->ranges[lo - 1];
	return addr < r->hi ? r->module : -1;
}

size_t sp_modules__take(struct sp_modules *m, struct sp_module_out **out)
{
	size_t n = m->nr;
	*out = m->mods;
	m->mods = NULL;
	m->nr = m->cap = 0;
	return n;
}

void sp_modules__exit(struct sp_modules *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->mods[i].path);
	free(m->mods);
	free(m->ranges);
	memset(m, 0, sizeof(*m));
}
