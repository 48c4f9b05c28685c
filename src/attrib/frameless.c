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
#include "exec/exec.h"
#include "model/model.h"
#include "tools/objdump.h"

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

/* The bytes [va, va + n) of the module's file image, or NULL. */
static const unsigned char *image_at(const struct module_view *v, uint64_t va, size_t n,
				     uint64_t *file_off)
{
	for (size_t i = 0; v->ok && i < v->info.nr_loads; i++) {
		const struct elf_segment *s = &v->info.loads[i];
		if (va < s->vaddr || va - s->vaddr + n > s->filesz)
			continue;
		uint64_t at = va - s->vaddr + s->offset;
		if (at + n > v->len)
			return NULL;
		if (file_off)
			*file_off = at;
		return v->image + at;
	}
	return NULL;
}

/* The length of f's frame setup at its start, 0 when it sets up none. */
static size_t framed_len(const struct module_view *v, const struct elf_func *f)
{
	size_t n = f->size < 16 ? (size_t)f->size : 16;
	const unsigned char *c = image_at(v, f->start, n, NULL);
	return c ? frame_setup_len(c, n) : 0;
}

/* 1 when a sample at module offset off runs where its function's frame is
 * not (yet, or no longer) set up: no frame at all, inside the setup, or at
 * a `ret` (after the `pop %rbp` or `leave`). *fn: the function, NULL when
 * the symbols cover no function there. */
static int frameless_at(const struct module_view *v, uint64_t off, const struct elf_func **fn)
{
	*fn = NULL;
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
	*fn = f;
	size_t len = framed_len(v, f);
	const unsigned char *at = image_at(v, va, 2, NULL);
	bool ret = at && (at[0] == 0xc3 || (at[0] == 0xf3 && at[1] == 0xc3));
	return len == 0 || va - f->start < len || ret;
}

/*
 * Recovering the skipped caller from the code (x86-64). A sample in leaf L
 * whose frame is not set up reads, as its first return address R1, the one
 * of the innermost function that has a frame. The caller is proven when:
 *  - the instruction before R1 is a direct call (e8 rel32, an instruction
 *    of the caller's disassembly) to T, the start of a function that sets
 *    up a frame (so the frame read is T's);
 *  - T's disassembly (GNU objdump) holds at least one direct call to L and
 *    no other way to reach L with a frame left unset: every other call goes
 *    directly to a function that sets up a frame, and no jump leaves T
 *    (a tail call) and no call or jump is indirect;
 *  - L itself never names %rbp/%ebp unless it sets up a frame (a leaf
 *    that uses rbp as a register would make the frame read garbage).
 * Then T is L's caller: the frame is T's and only T can have called L.
 * Anything else keeps the caller unknown.
 */
struct proof {
	size_t view;
	uint64_t r1, leaf;     /* the return address read, the leaf's start */
	bool ok;
	const char *name;      /* T's symbol (borrowed from the view) */
	uint64_t ret_off;      /* file offset of the return address in T */
};

struct scan {
	const struct module_view *v;
	uint64_t leaf, ret_va;
	int calls;
	bool ok;
};

static bool on_branch(enum objdump_branch kind, uint64_t at, uint64_t target, void *ctx)
{
	struct scan *sc = ctx;
	if (kind != OBJDUMP_CALL)
		return sc->ok = false;
	if (target == sc->leaf) {
		const unsigned char *c = image_at(sc->v, at, 5, NULL);
		if (!c || c[0] != 0xe8)
			return sc->ok = false;
		if (sc->calls++ == 0)
			sc->ret_va = at + 5;
		return true;
	}
	const struct elf_func *g = elf_info__func_at(&sc->v->info, target);
	if (!g || g->start != target || framed_len(sc->v, g) == 0)
		return sc->ok = false;
	return true;
}

/* objdump through the executor, each function's disassembly asked once:
 * the callers of many leaves share their callers' callers (main...). A Run
 * with more distinct call sites than PROOFS_MAX leaves the rest unknown
 * rather than spend minutes in objdump. */
#define PROOFS_MAX 512

struct dis_entry {
	const char *path; /* borrowed from the view */
	uint64_t start;
	char *text;       /* NULL: objdump failed */
};

struct prover {
	struct executor *x;
	const char *objdump;
	struct dis_entry *v;
	size_t n, cap;
};

/* Borrowed until the prover is released; NULL when objdump failed. */
static const char *disassemble(struct prover *pv, const char *module, const struct elf_func *f)
{
	for (size_t i = 0; i < pv->n; i++)
		if (pv->v[i].start == f->start && !strcmp(pv->v[i].path, module))
			return pv->v[i].text;
	struct objdump_range_argv a;
	objdump__disassemble_argv(&a, pv->objdump, module, f->start, f->size);
	struct exec_request rq = {.argv = a.argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 60, .cacheable = true};
	struct exec_result res = {0};
	struct err e = {0};
	char *out = NULL;
	if (executor__run(pv->x, &rq, &res, &e) == 0 && res.exit_code == 0 && res.out)
		out = xstrdup(res.out);
	exec_result__release(&res);
	if (xgrow((void **)&pv->v, &pv->cap, pv->n + 1, sizeof(*pv->v))) {
		xfree(out);
		return NULL;
	}
	pv->v[pv->n++] = (struct dis_entry){module, f->start, out};
	return out;
}

static void prover__release(struct prover *pv)
{
	for (size_t i = 0; i < pv->n; i++)
		xfree(pv->v[i].text);
	xfree(pv->v);
}

/* The leaf never touches rbp (when it sets up no frame). */
static bool leaf_clean(const struct module_view *v, struct prover *pv, const struct elf_func *l)
{
	if (framed_len(v, l) > 0)
		return true;
	const char *dis = disassemble(pv, v->path, l);
	return dis && objdump__branches(dis, l->start, l->start + l->size, NULL, NULL) > 0 &&
	       !strstr(dis, "%rbp") && !strstr(dis, "%ebp") && !strstr(dis, "%bpl");
}

struct site {
	uint64_t at, target;
	bool found;
};

static bool on_site(enum objdump_branch kind, uint64_t at, uint64_t target, void *ctx)
{
	struct site *st = ctx;
	st->found |= kind == OBJDUMP_CALL && at == st->at && target == st->target;
	return !st->found;
}

/* The caller's own disassembly has a call instruction at `at` to target:
 * the e8 byte read before the return address starts an instruction, it is
 * not the tail of another one. */
static bool call_at(const struct module_view *v, struct prover *pv, uint64_t at, uint64_t target)
{
	const struct elf_func *f = elf_info__func_at(&v->info, at);
	const char *dis = f ? disassemble(pv, v->path, f) : NULL;
	struct site st = {.at = at, .target = target};
	if (dis)
		objdump__branches(dis, f->start, f->start + f->size, on_site, &st);
	return st.found;
}

static void prove(const struct module_view *v, struct prover *pv, const struct elf_func *l,
		  struct proof *pr)
{
	uint64_t ra = elf_info__symbolizer_address(&v->info, pr->r1);
	const unsigned char *c = ra > 5 ? image_at(v, ra - 5, 5, NULL) : NULL;
	if (!c || c[0] != 0xe8)
		return;
	int32_t rel;
	memcpy(&rel, c + 1, sizeof(rel));
	uint64_t t = ra + (uint64_t)(int64_t)rel;
	const struct elf_func *ft = elf_info__func_at(&v->info, t);
	if (!ft || ft->start != t || ft == l || framed_len(v, ft) == 0 ||
	    !leaf_clean(v, pv, l) || !call_at(v, pv, ra - 5, t))
		return;
	const char *dis = disassemble(pv, v->path, ft);
	struct scan sc = {.v = v, .leaf = l->start, .ok = true};
	long n = dis ? objdump__branches(dis, ft->start, ft->start + ft->size, on_branch, &sc) : -1;
	if (n <= 0 || !sc.ok || sc.calls == 0 || !image_at(v, sc.ret_va, 1, &pr->ret_off))
		return;
	pr->ok = true;
	pr->name = ft->name;
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
		int w = snprintf(r->modules + len, sizeof(r->modules) - len, "%s%s %.1f%%",
				 len ? ", " : "", base ? base + 1 : best->path ? best->path : "?",
				 100 * best->unknown / r->stacked);
		if (w < 0 || (size_t)w >= sizeof(r->modules) - len)
			break;
		len += (size_t)w;
		best->unknown = -best->unknown; /* listed */
	}
}

/* The proof for (view, r1, leaf), computed once. NULL only without memory. */
static struct proof *proof_of(struct proof **ps, size_t *nr, size_t *cap,
			      const struct module_view *vs, size_t view, uint64_t r1,
			      const struct elf_func *l, struct prover *pv)
{
	for (size_t i = 0; i < *nr; i++)
		if ((*ps)[i].view == view && (*ps)[i].r1 == r1 && (*ps)[i].leaf == l->start)
			return &(*ps)[i];
	if (xgrow((void **)ps, cap, *nr + 1, sizeof(**ps)))
		return NULL;
	struct proof *pr = &(*ps)[(*nr)++];
	*pr = (struct proof){.view = view, .r1 = r1, .leaf = l->start};
	if (*nr <= PROOFS_MAX)
		prove(&vs[view], pv, l, pr);
	return pr;
}

/* A frame of user code: not "[kernel.kallsyms]", "[module]", "[vdso]"... */
static bool user_frame(const struct stack_frame *f)
{
	return f->module && f->module[0] != '[';
}

/* Per stack, the user leaf (the shallowest user frame: the interrupted
 * user IP, under the kernel's frames when a sample or a context switch
 * came from the kernel) and the frame just above it, as indices + 1 (0:
 * none), and the user leaf's depth. */
static void index_frames(const struct pivot *p, size_t *leaf, size_t *second, int *udepth)
{
	for (size_t i = 0; i < p->nr_stack_frames; i++) {
		const struct stack_frame *f = &p->stack_frames[i];
		if (f->stack < 0 || (size_t)f->stack >= p->nr_stacks || !user_frame(f))
			continue;
		if (!leaf[f->stack] || f->depth < udepth[f->stack]) {
			leaf[f->stack] = i + 1;
			udepth[f->stack] = f->depth;
		}
	}
	for (size_t i = 0; i < p->nr_stack_frames; i++) {
		const struct stack_frame *f = &p->stack_frames[i];
		if (f->stack >= 0 && (size_t)f->stack < p->nr_stacks && leaf[f->stack] &&
		    f->depth == udepth[f->stack] + 1)
			second[f->stack] = i + 1;
	}
}

struct marks {
	size_t *leaf, *second; /* indices, never pointers: adding frames moves the array */
	size_t *proof;         /* +1 into the proofs; 0: unknown */
	int *udepth;           /* depth of the user leaf */
	bool *mark;
};

/* Marks the stacks whose leaf has no frame set up, and proves their callers. */
static int mark_stacks(struct pivot *p, struct prover *pv, struct marks *m, struct module_view **vs, size_t *nr,
		       struct proof **ps, size_t *nr_ps, struct frameless_report *r)
{
	size_t cap = 0, cap_ps = 0;
	for (size_t s = 0; s < p->nr_stacks; s++) {
		if (!m->leaf[s])
			continue;
		const struct stack_frame *f0 = &p->stack_frames[m->leaf[s] - 1];
		struct module_view *v = view_of(vs, nr, &cap, f0->module);
		if (!v)
			return -ENOMEM;
		const struct elf_func *l;
		double val = p->stacks[s].value;
		r->stacked += val;
		if (!(m->mark[s] = frameless_at(v, f0->offset, &l)))
			continue;
		const struct stack_frame *f1 = m->second[s] ? &p->stack_frames[m->second[s] - 1]
							    : NULL;
		struct proof *pr = NULL;
		if (pv->x && pv->objdump && l && f1 && f1->module && f0->module &&
		    !strcmp(f1->module, f0->module) &&
		    !(pr = proof_of(ps, nr_ps, &cap_ps, *vs, (size_t)(v - *vs), f1->offset, l, pv)))
			return -ENOMEM;
		if (pr && pr->ok) {
			m->proof[s] = (size_t)(pr - *ps) + 1;
			r->recovered += val;
		} else {
			r->unknown += val;
			v->unknown += val;
		}
	}
	return 0;
}

int frameless_mark(struct pivot *p, struct executor *x, const char *objdump,
		   struct frameless_report *r)
{
	memset(r, 0, sizeof(*r));
	struct module_view *vs = NULL;
	struct proof *ps = NULL;
	size_t nr = 0, nr_ps = 0;
	struct marks m = {.leaf = xcalloc(p->nr_stacks + 1, sizeof(size_t)),
			  .second = xcalloc(p->nr_stacks + 1, sizeof(size_t)),
			  .proof = xcalloc(p->nr_stacks + 1, sizeof(size_t)),
			  .udepth = xcalloc(p->nr_stacks + 1, sizeof(int)),
			  .mark = xcalloc(p->nr_stacks + 1, sizeof(bool))};
	int rc = m.leaf && m.second && m.proof && m.udepth && m.mark ? 0 : -ENOMEM;
	if (!rc)
		index_frames(p, m.leaf, m.second, m.udepth);
	struct prover pv = {.x = x, .objdump = objdump};
	if (!rc)
		rc = mark_stacks(p, &pv, &m, &vs, &nr, &ps, &nr_ps, r);
	prover__release(&pv);
	if (!rc && r->unknown > 0)
		describe(vs, nr, r);
	/* Frames above the user leaf move up one, then the caller takes the
	 * depth just above the leaf. */
	size_t nr_frames = p->nr_stack_frames;
	for (size_t i = 0; !rc && i < nr_frames; i++) {
		struct stack_frame *f = &p->stack_frames[i];
		if (f->stack >= 0 && (size_t)f->stack < p->nr_stacks && m.mark[f->stack] &&
		    f->depth > m.udepth[f->stack])
			f->depth++;
	}
	for (size_t s = 0; !rc && s < p->nr_stacks; s++) {
		if (!m.mark[s])
			continue;
		/* the leaf's strings are their own allocations: a copy of the
		 * struct stays valid while the array grows */
		struct stack_frame u = p->stack_frames[m.leaf[s] - 1];
		u.depth = m.udepth[s] + 1;
		u.function = (char *)FRAMELESS_CALLER;
		if (m.proof[s]) {
			u.function = (char *)ps[m.proof[s] - 1].name; /* copied by the pivot */
			u.offset = ps[m.proof[s] - 1].ret_off;
		}
		if (pivot__add_stack_frame(p, &u) < 0)
			rc = -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++)
		view_close(&vs[i]);
	xfree(vs);
	xfree(ps);
	xfree(m.leaf);
	xfree(m.second);
	xfree(m.proof);
	xfree(m.udepth);
	xfree(m.mark);
	return rc;
}
