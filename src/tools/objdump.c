// SPDX-License-Identifier: BSD-3-Clause
#include "tools/objdump.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/text.h"

void objdump__version_argv(const char *argv[3], const char *path)
{
	argv[0] = path;
	argv[1] = "--version";
	argv[2] = NULL;
}

bool objdump__is_gnu(const char *version_out)
{
	return version_out && strstr(version_out, "GNU objdump");
}

void objdump__symbols_argv(const char *argv[4], const char *path, bool dynamic,
			   const char *module)
{
	argv[0] = path;
	argv[1] = dynamic ? "-T" : "-t";
	argv[2] = module;
	argv[3] = NULL;
}

void objdump__disassemble_argv(struct objdump_range_argv *a, const char *path,
			       const char *module, uint64_t start, uint64_t len)
{
	snprintf(a->start, sizeof(a->start), "--start-address=0x%" PRIx64, start);
	snprintf(a->stop, sizeof(a->stop), "--stop-address=0x%" PRIx64, start + len);
	a->argv[0] = path;
	a->argv[1] = "--disassemble";
	a->argv[2] = a->start;
	a->argv[3] = a->stop;
	a->argv[4] = module;
	a->argv[5] = NULL;
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

size_t objdump__parse_symbols(const char *text, uint64_t min_size, size_t max, uint64_t *out)
{
	struct sym *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = text ? text : "";
	while (*p) {
		const char *l;
		size_t len = text_next_line(&p, &l);
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

/* The instruction text of an objdump -d line ("  10c4:\t55 \tpush   %rbp"),
 * into ins; false for any other line. */
static bool insn_text(const char *l, size_t len, char *ins, size_t cap)
{
	const char *t1 = memchr(l, '\t', len);
	const char *t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - l)) : NULL;
	if (!t1 || !t2 || t1 == l || t1[-1] != ':')
		return false;
	size_t il = len - (size_t)(t2 + 1 - l);
	if (il >= cap)
		il = cap - 1;
	memcpy(ins, t2 + 1, il);
	ins[il] = '\0';
	return true;
}

/* A frame is set up, not a register saved: `push %rbp` and then `mov
 * %rsp,%rbp` (x86-64; GCC may schedule an instruction or two between them),
 * `stp x29, x30, ...` and then `mov x29, sp` (AArch64). A push %rbp without
 * the mov is how -O2 code without frame pointers saves rbp as a
 * callee-saved register (issue 24: such a build passed the check at 88 %).
 * The save is looked for within the first max_insns instructions, the mov
 * within max_insns more. */
bool objdump__fp_prologue(const char *dis, int max_insns)
{
	int insns = 0, saved_at = 0;
	bool x86 = false;
	const char *p = dis ? dis : "";
	while (*p && insns < (saved_at ? saved_at + max_insns : max_insns)) {
		const char *l;
		size_t len = text_next_line(&p, &l);
		char ins[128];
		if (!insn_text(l, len, ins, sizeof(ins)))
			continue;
		insns++;
		bool mov = strncmp(ins, "mov", 3) == 0;
		if (saved_at && mov && strstr(ins, x86 ? "%rsp,%rbp" : "x29, sp"))
			return true;
		if (!saved_at && strncmp(ins, "push", 4) == 0 && strstr(ins, "%rbp")) {
			saved_at = insns;
			x86 = true;
		} else if (!saved_at && strncmp(ins, "stp", 3) == 0 && strstr(ins, "x29, x30")) {
			saved_at = insns;
		}
	}
	return false;
}


/* The address of an objdump -d instruction line ("  1178:\t..."). */
static bool insn_address(const char *l, size_t len, uint64_t *at)
{
	char buf[32];
	size_t i = 0;
	while (i < len && l[i] == ' ')
		i++;
	size_t n = 0;
	while (i < len && n + 1 < sizeof(buf) && isxdigit((unsigned char)l[i]))
		buf[n++] = l[i++];
	buf[n] = '\0';
	if (n == 0 || i >= len || l[i] != ':')
		return false;
	*at = strtoull(buf, NULL, 16);
	return true;
}

static bool is_prefix(const char *w, size_t n)
{
	static const char *const prefixes[] = {"bnd", "notrack", "ds", "cs", "lock", "rep",
					       "repz", "repnz", "data16", "addr32"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strlen(prefixes[i]) == n && !strncmp(w, prefixes[i], n))
			return true;
	return false;
}

/* The kind of a branch instruction ("call 1139 <leaf>", "jne 114f
 * <leaf+0x16>", "jmp *%rax"); false for any other instruction. */
static bool branch_of(const char *ins, uint64_t lo, uint64_t hi, enum objdump_branch *kind,
		      uint64_t *target)
{
	const char *w = ins;
	size_t n;
	for (;;) {
		while (*w == ' ')
			w++;
		n = strcspn(w, " \t");
		if (!is_prefix(w, n))
			break;
		w += n;
	}
	bool call = (n == 4 || n == 5) && !strncmp(w, "call", 4);
	bool jump = w[0] == 'j' || (n >= 4 && !strncmp(w, "loop", 4)) ||
		    (n == 6 && !strncmp(w, "xbegin", 6));
	if (!call && !jump)
		return false;
	const char *op = w + n;
	while (*op == ' ' || *op == '\t')
		op++;
	char *end;
	*target = strtoull(op, &end, 16);
	if (*op == '*' || end == op) {
		*kind = OBJDUMP_INDIRECT;
		*target = 0;
		return true;
	}
	if (call)
		*kind = OBJDUMP_CALL;
	else if (*target >= lo && *target < hi)
		return false; /* a jump within the function */
	else
		*kind = OBJDUMP_JUMP_OUT;
	return true;
}

long objdump__branches(const char *dis, uint64_t lo, uint64_t hi, objdump_branch_fn fn,
		       void *ctx)
{
	long insns = 0;
	const char *p = dis ? dis : "";
	while (*p) {
		const char *l;
		size_t len = text_next_line(&p, &l);
		char ins[256];
		uint64_t at, target;
		enum objdump_branch kind;
		if (!insn_text(l, len, ins, sizeof(ins)) || !insn_address(l, len, &at))
			continue;
		insns++;
		if (fn && branch_of(ins, lo, hi, &kind, &target) && !fn(kind, at, target, ctx))
			return -1;
	}
	return insns;
}
