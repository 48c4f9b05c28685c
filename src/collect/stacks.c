// SPDX-License-Identifier: BSD-3-Clause
#include "collect/stacks.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"

static const char *const mode_names[] = {"none", "fp", "lbr", "dwarf"};

const char *stacks_mode__name(enum stacks_mode m)
{
	return (unsigned)m < 4 ? mode_names[m] : "none";
}

int stacks_mode__parse(const char *s, enum stacks_mode *out)
{
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, mode_names[i])) {
			*out = (enum stacks_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* The next line of text: [*p, end of line); advances *p past it. */
static size_t next_line(const char **p, const char **line)
{
	*line = *p;
	const char *nl = strchr(*p, '\n');
	size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
	*p = nl ? nl + 1 : *p + len;
	return len;
}

char **stacks_parse_ldd(const char *text, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	const char *p = text ? text : "";
	while (*p) {
		const char *l;
		size_t len = next_line(&p, &l);
		const char *arrow = memmem(l, len, "=> /", 4);
		if (!arrow)
			continue;
		const char *path = arrow + 3, *end = path;
		while (end < l + len && !isspace((unsigned char)*end))
			end++;
		if (xgrow((void **)&v, &cap, *n + 2, sizeof(*v)) < 0)
			break;
		v[*n] = xstrndup(path, (size_t)(end - path));
		if (v[*n])
			(*n)++;
	}
	return v;
}

struct sym {
	uint64_t addr, size;
	size_t order;
};

/* "<addr> <flags> <section>\t<size> [version] name": a defined function. */
static bool parse_symbol(const char *l, size_t len, struct sym *s)
{
	char buf[512];
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, l, len);
	buf[len] = '\0';
	char *tab = strchr(buf, '\t');
	char *end;
	if (!tab || !isxdigit((unsigned char)buf[0]))
		return false;
	*tab = '\0';
	s->addr = strtoull(buf, &end, 16);
	if (end == buf || *end != ' ')
		return false;
	char *section = strrchr(end, ' ');
	if (!section || strcmp(section + 1, "*UND*") == 0)
		return false;
	*section = '\0';
	if (!strchr(end, 'F')) /* the flags between address and section */
		return false;
	s->size = strtoull(tab + 1, &end, 16);
	return end != tab + 1;
}

static int cmp_sym(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

static int cmp_addr(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

size_t stacks_parse_symbols(const char *text, uint64_t min_size, size_t max, uint64_t *out)
{
	struct sym *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = text ? text : "";
	while (*p) {
		const char *l;
		size_t len = next_line(&p, &l);
		struct sym s;
		if (!parse_symbol(l, len, &s) || s.size < min_size)
			continue;
		if (xgrow((void **)&v, &cap, n + 1, sizeof(*v)) < 0)
			break;
		s.order = n;
		v[n++] = s;
	}
	if (n == 0) { /* qsort of a NULL array is undefined, even of 0 elements */
		xfree(v);
		return 0;
	}
	/* One per address (a symbol listed under several versions). */
	qsort(v, n, sizeof(*v), cmp_addr);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || v[u - 1].addr != v[i].addr)
			v[u++] = v[i];
	qsort(v, u, sizeof(*v), cmp_sym);
	size_t k = 0;
	for (; k < u && k < max; k++)
		out[k] = v[k].addr;
	xfree(v);
	return k;
}

bool stacks_fp_prologue(const char *dis)
{
	int insns = 0;
	const char *p = dis ? dis : "";
	while (*p && insns < STACKS_PROLOGUE_INSNS) {
		const char *l;
		size_t len = next_line(&p, &l);
		/* an instruction line: "  10c4:\t55 \tpush   %rbp" (two tabs) */
		const char *t1 = memchr(l, '\t', len);
		const char *t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - l)) : NULL;
		if (!t1 || !t2 || t1 == l || t1[-1] != ':')
			continue;
		insns++;
		char ins[128];
		size_t il = len - (size_t)(t2 + 1 - l);
		if (il >= sizeof(ins))
			il = sizeof(ins) - 1;
		memcpy(ins, t2 + 1, il);
		ins[il] = '\0';
		if ((strncmp(ins, "push", 4) == 0 && strstr(ins, "%rbp")) ||
		    (strncmp(ins, "stp", 3) == 0 && strstr(ins, "x29, x30")))
			return true;
	}
	return false;
}

void stacks_decide(struct stacks_decision *d, const char *cpu_model, bool objdump_ok,
		   double threshold)
{
	d->rate = -1;
	d->reason[0] = '\0';
	if (cpu_model && strstr(cpu_model, "Intel")) {
		d->mode = STACKS_LBR;
		snprintf(d->detail, sizeof(d->detail), "lbr (the CPU records last branches: %s)",
			 cpu_model);
		return;
	}
	if (!objdump_ok) {
		d->mode = STACKS_NONE;
		snprintf(d->detail, sizeof(d->detail), "none: GNU objdump not found");
		snprintf(d->reason, sizeof(d->reason),
			 "no call stacks: GNU objdump is needed to check the binaries for frame "
			 "pointers");
		return;
	}
	double sum = 0;
	int counted = 0;
	const struct stacks_module *worst = NULL;
	for (size_t i = 0; i < d->nr_modules; i++) {
		const struct stacks_module *m = &d->modules[i];
		if (m->sampled == 0)
			continue;
		double r = (double)m->with_fp / m->sampled;
		sum += r;
		counted++;
		if (!worst || r < (double)worst->with_fp / worst->sampled)
			worst = m;
	}
	if (!counted) {
		d->mode = STACKS_NONE;
		snprintf(d->detail, sizeof(d->detail),
			 "none: no function of %d bytes or more to check for frame pointers",
			 STACKS_MIN_SYMBOL);
		snprintf(d->reason, sizeof(d->reason),
			 "no call stacks: no function symbol large enough to check the binaries for "
			 "frame pointers (stripped?)");
		return;
	}
	d->rate = sum / counted;
	double wr = (double)worst->with_fp / worst->sampled;
	if (d->rate >= threshold) {
		d->mode = STACKS_FP;
		snprintf(d->detail, sizeof(d->detail),
			 "fp: frame pointers in %.0f%% of the checked functions over %d module%s "
			 "(threshold %.0f%%)", d->rate * 100, counted, counted > 1 ? "s" : "",
			 threshold * 100);
		return;
	}
	d->mode = STACKS_NONE;
	snprintf(d->detail, sizeof(d->detail), "none: frame pointers in %.0f%% of the checked "
		 "functions, below the %.0f%% threshold; worst offender: %.200s (%.0f%%)",
		 d->rate * 100, threshold * 100, worst->path, wr * 100);
	snprintf(d->reason, sizeof(d->reason),
		 "no call stacks: frame pointers in %.0f%% of the checked functions, below the "
		 "%.0f%% threshold; worst offender: %.200s (%.0f%%)", d->rate * 100,
		 threshold * 100, worst->path, wr * 100);
}

void stacks_decision__release(struct stacks_decision *d)
{
	for (size_t i = 0; i < d->nr_modules; i++)
		xfree(d->modules[i].path);
	xfree(d->modules);
	d->modules = NULL;
	d->nr_modules = 0;
}
