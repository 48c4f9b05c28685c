// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/frameless.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/err.h"
#include "model/model.h"

#define EM_X86_64 62

size_t frame_setup_len(const unsigned char *code, size_t n)
{
	size_t i = 0;
	if (n >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa)
		i = 4; /* endbr64 */
	if (i + 4 > n || code[i] != 0x55) /* push %rbp */
		return 0;
	const unsigned char *m = code + i + 1;
	/* mov %rsp,%rbp: 48 89 e5 or 48 8b ec */
	if (m[0] == 0x48 && ((m[1] == 0x89 && m[2] == 0xe5) || (m[1] == 0x8b && m[2] == 0xec)))
		return i + 4;
	return 0;
}

struct module_view {
	const char *path;     /* borrowed from the pivot */
	struct elf_info info;
	const unsigned char *image;
	size_t len;
	bool ok;
	double stacked, unknown;
};

static void view_open(struct module_view *v)
{
	struct err e = {0};
	int fd = v->path ? open(v->path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	void *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return;
	v->image = img;
	v->len = (size_t)st.st_size;
	v->ok = elf_info__parse(&v->info, img, v->len, ELF_READ_SYMBOLS, &e) == 0 &&
		v->info.machine == EM_X86_64 && v->info.nr_funcs > 0;
}

static void view_close(struct module_view *v)
{
	elf_info__release(&v->info);
	if (v->image)
		munmap((void *)v->image, v->len);
}

/* 1 when a sample at module offset off has not set up its function's frame. */
static int frameless_at(const struct module_view *v, uint64_t off)
{
	if (!v->ok)
		return 0;
	uint64_t va = elf_info__symbolizer_address(&v->info, off);
	const struct elf_func *f = elf_info__func_at(&v->info, va);
	/* A function the module's symbols do not cover (a local symbol of a
	 * stripped library: libc's __memcpy_avx512_unaligned_erms, which sets up
	 * no frame) cannot be shown to set up its frame: its caller is unknown,
	 * never the caller's caller taken as measured. */
	if (!f)
		return 1;
	for (size_t i = 0; i < v->info.nr_loads; i++) {
		const struct elf_segment *s = &v->info.loads[i];
		if (f->start < s->vaddr || f->start >= s->vaddr + s->filesz)
			continue;
		uint64_t at = f->start - s->vaddr + s->offset;
		if (at >= v->len)
			return 0;
		size_t n = v->len - at < 16 ? v->len - at : 16;
		size_t len = frame_setup_len(v->image + at, n);
		return len == 0 || va - f->start < len;
	}
	return 0;
}

static struct module_view *view_of(struct module_view **vs, size_t *nr, size_t *cap,
				   const char *path)
{
	for (size_t i = 0; i < *nr; i++)
		if ((*vs)[i].path == path || ((*vs)[i].path && path && !strcmp((*vs)[i].path, path)))
			return &(*vs)[i];
	if (xgrow((void **)vs, cap, *nr + 1, sizeof(**vs)))
		return NULL;
	struct module_view *v = &(*vs)[(*nr)++];
	memset(v, 0, sizeof(*v));
	v->path = path;
	view_open(v);
	return v;
}

static void describe(struct module_view *vs, size_t nr, struct frameless_report *r)
{
	size_t len = 0;
	r->modules[0] = '\0';
	for (size_t k = 0; k < 4; k++) {
		struct module_view *best = NULL;
		for (size_t i = 0; i < nr; i++)
			if (vs[i].unknown > 0 && (!best || vs[i].unknown > best->unknown))
				best = &vs[i];
		if (!best)
			break;
		const char *base = best->path ? strrchr(best->path, '/') : NULL;
		int w = snprintf(r->modules + len, sizeof(r->modules) - len, "%s%s %.0f%%",
				 len ? ", " : "", base ? base + 1 : best->path ? best->path : "?",
				 100 * best->unknown / r->stacked);
		if (w < 0 || (size_t)w >= sizeof(r->modules) - len)
			break;
		len += (size_t)w;
		best->unknown = -best->unknown; /* listed */
	}
}

int frameless_mark(struct pivot *p, struct frameless_report *r)
{
	memset(r, 0, sizeof(*r));
	struct module_view *vs = NULL;
	size_t nr = 0, cap = 0;
	bool *mark = xcalloc(p->nr_stacks + 1, sizeof(*mark));
	/* indices, never pointers: adding frames moves the array */
	size_t *leaf = xcalloc(p->nr_stacks + 1, sizeof(*leaf));
	int rc = mark && leaf ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < p->nr_stack_frames; i++) {
		const struct stack_frame *f = &p->stack_frames[i];
		if (f->depth == 0 && f->stack >= 0 && (size_t)f->stack < p->nr_stacks)
			leaf[f->stack] = i + 1;
	}
	for (size_t s = 0; !rc && s < p->nr_stacks; s++) {
		if (!leaf[s])
			continue;
		const struct stack_frame *f0 = &p->stack_frames[leaf[s] - 1];
		struct module_view *v = view_of(&vs, &nr, &cap, f0->module);
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		r->stacked += p->stacks[s].value;
		if ((mark[s] = frameless_at(v, f0->offset))) {
			r->unknown += p->stacks[s].value;
			v->unknown += p->stacks[s].value;
		}
	}
	if (!rc && r->unknown > 0)
		describe(vs, nr, r);
	/* Deeper frames move down one, then the unknown caller takes depth 1. */
	size_t nr_frames = p->nr_stack_frames;
	for (size_t i = 0; !rc && i < nr_frames; i++) {
		struct stack_frame *f = &p->stack_frames[i];
		if (f->depth >= 1 && f->stack >= 0 && (size_t)f->stack < p->nr_stacks && mark[f->stack])
			f->depth++;
	}
	for (size_t s = 0; !rc && s < p->nr_stacks; s++) {
		if (!mark[s])
			continue;
		/* the leaf's strings are their own allocations: a copy of the
		 * struct stays valid while the array grows */
		struct stack_frame u = p->stack_frames[leaf[s] - 1];
		u.depth = 1;
		u.function = (char *)FRAMELESS_CALLER;
		if (pivot__add_stack_frame(p, &u) < 0)
			rc = -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++)
		view_close(&vs[i]);
	xfree(vs);
	xfree(mark);
	xfree(leaf);
	return rc;
}
