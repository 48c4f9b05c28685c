// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/injected.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/err.h"
#include "ingest/aggregate.h"

/* SELF: nunatak's own executable, sampled before it execs the application
 * (`nunatak fg-exec`, the rank shim): collection, never the application. */
enum { NOT_INJECTED, PROBE, PRELOAD, OMPT, SELF };

#define PSEUDO_MPI "[mpi:"
#define PSEUDO_COLLECTION "[collection:"
#define GENERIC_MPI "[mpi:MPI]"
#define GENERIC_COLLECTION "[collection:overhead]"

struct lib {
	char *path;
	bool readable;
	struct elf_info elf;
};

struct injected {
	struct lib *libs;
	size_t nr_libs, cap_libs;
	char **labels; /* interned pseudo-modules: stable pointers */
	size_t nr_labels, cap_labels;
	struct ingest_frame *frames, hit;
	size_t cap_frames;
	const char **lab; /* per input frame: its pseudo-module, or NULL */
	size_t cap_lab;
	char self[4096]; /* nunatak's own executable, or "" */
	size_t self_len;
};

struct injected *injected__new_self(const char *self)
{
	struct injected *c = xcalloc(1, sizeof(struct injected));
	size_t n = self ? strlen(self) : 0;
	if (c && n && n < sizeof(c->self)) {
		memcpy(c->self, self, n + 1);
		c->self_len = n;
	}
	return c;
}

/* This process's executable when it is nunatak (a test binary, or a program
 * linking the ingest code, is not). */
struct injected *injected__new(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	const char *base = strrchr(exe, '/');
	return injected__new_self(base && strcmp(base + 1, "nunatak") == 0 ? exe : NULL);
}

void injected__free(struct injected *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_libs; i++) {
		xfree(c->libs[i].path);
		elf_info__release(&c->libs[i].elf);
	}
	for (size_t i = 0; i < c->nr_labels; i++)
		xfree(c->labels[i]);
	xfree(c->libs);
	xfree(c->labels);
	xfree(c->frames);
	xfree(c->lab);
	xfree(c);
}

static int kind_of(const struct injected *c, const char *m, size_t len)
{
	if (c->self_len && len == c->self_len && memcmp(m, c->self, len) == 0)
		return SELF;
	const char *b = m + len;
	while (b > m && b[-1] != '/')
		b--;
	size_t n = (size_t)(m + len - b);
	if (n >= 14 && memcmp(b, "libnunatak-mpi", 14) == 0)
		return PROBE;
	if (n >= 20 && memcmp(b, "libscope_profiler.so", 20) == 0)
		return PRELOAD;
	if (n >= 15 && memcmp(b, "libnunatak_ompt", 15) == 0)
		return OMPT;
	return NOT_INJECTED;
}

bool injected__is_injected(const struct injected *c, const char *module, size_t len)
{
	return kind_of(c, module, len) != NOT_INJECTED;
}

static struct lib *lib_get(struct injected *c, const char *m, size_t len)
{
	for (size_t i = 0; i < c->nr_libs; i++)
		if (strlen(c->libs[i].path) == len && memcmp(c->libs[i].path, m, len) == 0)
			return &c->libs[i];
	if (xgrow((void **)&c->libs, &c->cap_libs, c->nr_libs + 1, sizeof(*c->libs)) < 0)
		return NULL;
	struct lib *l = &c->libs[c->nr_libs];
	*l = (struct lib){.path = xstrndup(m, len)};
	if (!l->path)
		return NULL;
	struct err e = {0};
	l->readable = elf_info__read(&l->elf, l->path, ELF_READ_SYMBOLS, &e) == 0;
	c->nr_libs++;
	return l;
}

static const char *intern(struct injected *c, const char *s)
{
	for (size_t i = 0; i < c->nr_labels; i++)
		if (strcmp(c->labels[i], s) == 0)
			return c->labels[i];
	if (xgrow((void **)&c->labels, &c->cap_labels, c->nr_labels + 1, sizeof(char *)) < 0)
		return NULL;
	char *d = xstrdup(s);
	if (d)
		c->labels[c->nr_labels++] = d;
	return d;
}

/* The public entry point a frame is in, as its pseudo-module into out:
 * "[mpi:MPI_Test]" for the probe's MPI_Test or mpi_test_, "[collection:sp_x]"
 * for the preload library's sp_x; false for an internal function (or no
 * symbol). */
static bool public_label(const struct lib *l, int kind, const struct ingest_frame *f, char *out,
			 size_t cap)
{
	uint64_t vaddr;
	if (!l->readable || !f->has_offset || elf_info__offset_to_vaddr(&l->elf, f->offset, &vaddr))
		return false;
	const struct elf_func *fn = elf_info__func_at(&l->elf, vaddr);
	const char *n = fn ? fn->name : NULL;
	size_t len = n ? strlen(n) : 0;
	if (kind == OMPT || kind == SELF) /* the OpenMP runtime's callbacks; nunatak itself */
		return false;
	if (kind == PRELOAD)
		return len > 3 && strncmp(n, "sp_", 3) == 0 &&
		       (size_t)snprintf(out, cap, PSEUDO_COLLECTION "%s]", n) < cap;
	if (len > 4 && strncmp(n, "MPI_", 4) == 0)
		return (size_t)snprintf(out, cap, PSEUDO_MPI "%s]", n) < cap;
	/* a Fortran binding: mpi_send_ is MPI_Send */
	if (len > 5 && strncmp(n, "mpi_", 4) == 0 && n[len - 1] == '_' && len + 8 < cap) {
		int k = snprintf(out, cap, PSEUDO_MPI "MPI_%c%.*s]", toupper((unsigned char)n[4]),
				 (int)(len - 6), n + 5);
		return k > 0 && (size_t)k < cap;
	}
	return false;
}

/* Labels every frame: injected ones get their pseudo-module, an internal
 * one that of the nearest public frame of its library further out (until a
 * frame of another module), else the generic one. Returns how many frames
 * are injected, or -ENOMEM. */
static int label_frames(struct injected *c, const struct ingest_frame *f, size_t n)
{
	int injected = 0;
	const char *outer = NULL;
	int outer_kind = NOT_INJECTED;
	for (size_t i = n; i-- > 0;) {
		int kind = kind_of(c, f[i].module, f[i].module_len);
		c->lab[i] = NULL;
		if (kind == NOT_INJECTED) {
			outer = NULL;
			continue;
		}
		injected++;
		struct lib *l = lib_get(c, f[i].module, f[i].module_len);
		char buf[160];
		if (!l)
			return -ENOMEM;
		const char *lab = public_label(l, kind, &f[i], buf, sizeof(buf)) ? buf
				  : outer && outer_kind == kind ? outer
				  : kind == PROBE ? GENERIC_MPI : GENERIC_COLLECTION;
		if (!(c->lab[i] = intern(c, lab)))
			return -ENOMEM;
		outer = c->lab[i];
		outer_kind = kind;
	}
	return injected;
}

static struct ingest_frame pseudo(const char *label)
{
	return (struct ingest_frame){.module = label, .module_len = strlen(label)};
}

int injected__rewrite(struct injected *c, const struct ingest_sample *s,
		      struct ingest_sample *out)
{
	bool chain = s->callchain && s->nr_callchain;
	const struct ingest_frame *in = chain ? s->callchain : &s->hit;
	size_t n = chain ? s->nr_callchain : 1;
	if (xgrow((void **)&c->lab, &c->cap_lab, n, sizeof(*c->lab)) < 0 ||
	    xgrow((void **)&c->frames, &c->cap_frames, n, sizeof(*c->frames)) < 0)
		return -ENOMEM;
	int rc = label_frames(c, in, n);
	int hit_kind = kind_of(c, s->hit.module, s->hit.module_len);
	if (rc <= 0 && hit_kind == NOT_INJECTED)
		return rc;
	*out = *s;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!c->lab[i])
			c->frames[k++] = in[i];
		else if (k == 0 || c->frames[k - 1].module != c->lab[i])
			c->frames[k++] = pseudo(c->lab[i]);
	}
	if (chain) {
		out->callchain = c->frames;
		out->nr_callchain = k;
	}
	/* The hit is the chain's frame 0; without a chain (or a chain that
	 * does not start at it) it is labelled alone. */
	if (chain && in[0].module == s->hit.module && in[0].offset == s->hit.offset) {
		c->hit = c->frames[0];
	} else if (hit_kind != NOT_INJECTED) {
		struct lib *l = lib_get(c, s->hit.module, s->hit.module_len);
		char buf[160];
		if (!l)
			return -ENOMEM;
		const char *lab = public_label(l, hit_kind, &s->hit, buf, sizeof(buf)) ? buf
				  : hit_kind == PROBE ? GENERIC_MPI : GENERIC_COLLECTION;
		if (!(lab = intern(c, lab)))
			return -ENOMEM;
		c->hit = pseudo(lab);
	} else {
		c->hit = s->hit;
	}
	out->hit = c->hit;
	return 1;
}

bool injected_is_pseudo(const char *module)
{
	return module && (strncmp(module, PSEUDO_MPI, strlen(PSEUDO_MPI)) == 0 ||
			  strncmp(module, PSEUDO_COLLECTION, strlen(PSEUDO_COLLECTION)) == 0);
}

bool injected_pseudo_name(const char *module, char *out, size_t cap)
{
	if (!injected_is_pseudo(module))
		return false;
	if (strcmp(module, GENERIC_COLLECTION) == 0)
		return (size_t)snprintf(out, cap, "collection overhead") < cap;
	const char *colon = strchr(module, ':');
	size_t len = strlen(colon + 1);
	if (!len || colon[len] != ']')
		return false;
	return (size_t)snprintf(out, cap, "%.*s", (int)(len - 1), colon + 1) < cap;
}
