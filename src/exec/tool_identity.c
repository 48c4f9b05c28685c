// SPDX-License-Identifier: BSD-3-Clause
/*
 * The libraries a cached tool would load from where the environment sends
 * the loader (exec/tool_identity.h). llvm-symbolizer-19 finds libLLVM
 * through RUNPATH $ORIGIN/../lib, but LD_LIBRARY_PATH is searched before
 * RUNPATH: under `module load llvm` another libLLVM.so.19.1 answers, and a
 * cache keyed by the tool's binary alone would serve that library's answers
 * as the tool's (or the other way round).
 *
 * The walk follows ld.so's order, breadth first from the tool: for each
 * DT_NEEDED name not loaded yet, the needing object's DT_RPATH (only when it
 * has no DT_RUNPATH) then the tool's DT_RPATH (same condition), then
 * LD_LIBRARY_PATH, then the object's DT_RUNPATH. A library found in
 * LD_LIBRARY_PATH is keyed (with every glibc-hwcaps/ or tls/ variant of it
 * in that directory, since which one the loader picks depends on the CPU),
 * and so is every LD_PRELOAD object; libraries found through RPATH/RUNPATH
 * are not keyed (they are the tool's own, covered while unchanged by the
 * tool's identity) but their own DT_NEEDED are walked the same way. A name
 * found in none of these comes from ld.so.cache or the default directories:
 * not keyed, but walked when it is in one of the usual ones (DEFAULT_DIRS;
 * ld.so.cache itself is not parsed). A tool that is not a readable native ELF (a shell
 * wrapper) is keyed by the raw LD_LIBRARY_PATH value instead.
 */
#include "exec/tool_identity.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"

#define MAX_OBJECTS 128 /* a tool's whole dependency tree; more are not walked */
#define MAX_PHDRS 512
#define MAX_DYN_BYTES (64u << 10)
#define MAX_STRTAB (1u << 20)

/* Where ld.so.cache's libraries live (not parsed: the directories it lists
 * on Debian and the usual fallbacks); only used to walk their DT_NEEDED. */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#else
#define MULTIARCH "unknown"
#endif
#define DEFAULT_DIRS \
	"/lib/" MULTIARCH ":/usr/lib/" MULTIARCH ":/lib64:/usr/lib64:/lib:/usr/lib"

/* A growing NUL-terminated text; `failed` once an allocation failed. */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void text_add(struct text *t, const char *a, const char *b)
{
	size_t na = strlen(a), nb = b ? strlen(b) : 0;
	if (t->failed || xgrow((void **)&t->s, &t->cap, t->len + na + nb + 2, 1) < 0) {
		t->failed = true;
		return;
	}
	memcpy(t->s + t->len, a, na);
	if (nb)
		memcpy(t->s + t->len + na, b, nb);
	t->len += na + nb;
	t->s[t->len++] = ';';
	t->s[t->len] = '\0';
}

/* The value `name` will have in the child: env_set, else unset, else ours. */
static const char *child_env(const struct exec_request *req, const char *name)
{
	size_t n = strlen(name);
	const char *v = NULL;
	for (const char *const *s = req->env_set; s && *s; s++)
		if (strncmp(*s, name, n) == 0 && (*s)[n] == '=')
			v = *s + n + 1; /* the last one wins, as in build_env's environ */
	if (v)
		return v;
	for (const char *const *u = req->env_unset; u && *u; u++)
		if (strcmp(*u, name) == 0)
			return NULL;
	return getenv(name);
}

static bool file_id(const char *path, char *out, size_t cap)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	snprintf(out, cap, "@%ju:%ju:%jd:%jd.%09ld", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
		 (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return true;
}

/* One object of the walk: its path, DT_NEEDED names, RPATH and RUNPATH. */
struct dynobj {
	char *path;
	char *strtab; /* DT_STRTAB's bytes, NUL-terminated */
	size_t strsz;
	uint64_t *needed; /* offsets into strtab */
	size_t n_needed, cap_needed;
	int64_t rpath, runpath; /* offsets, -1: absent */
};

struct seg {
	uint64_t type, offset, vaddr, filesz;
};

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return n == 0 || pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* The program headers, normalised over ELF32/ELF64. Returns how many (0: not
 * a native ELF we can read). */
static size_t read_segs(int fd, struct seg *segs, size_t max)
{
	unsigned char id[EI_NIDENT];
	if (!read_at(fd, id, sizeof(id), 0) || memcmp(id, ELFMAG, SELFMAG) != 0)
		return 0;
	uint16_t probe = 1;
	int host_data = *(unsigned char *)&probe ? ELFDATA2LSB : ELFDATA2MSB;
	if (id[EI_DATA] != host_data)
		return 0;
	size_t n = 0;
	if (id[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
		if (!read_at(fd, &eh, sizeof(eh), 0) || eh.e_phentsize != sizeof(ph))
			return 0;
		for (size_t i = 0; i < eh.e_phnum && n < max; i++) {
			if (!read_at(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)))
				return 0;
			segs[n++] = (struct seg){ph.p_type, ph.p_offset, ph.p_vaddr, ph.p_filesz};
		}
	} else if (id[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;
		Elf32_Phdr ph;
		if (!read_at(fd, &eh, sizeof(eh), 0) || eh.e_phentsize != sizeof(ph))
			return 0;
		for (size_t i = 0; i < eh.e_phnum && n < max; i++) {
			if (!read_at(fd, &ph, sizeof(ph), (uint64_t)eh.e_phoff + i * sizeof(ph)))
				return 0;
			segs[n++] = (struct seg){ph.p_type, ph.p_offset, ph.p_vaddr, ph.p_filesz};
		}
	}
	return n;
}

/* The file offset of a virtual address, through the PT_LOAD holding it. */
static bool vaddr_offset(const struct seg *segs, size_t n, uint64_t va, uint64_t *off)
{
	for (size_t i = 0; i < n; i++)
		if (segs[i].type == PT_LOAD && va >= segs[i].vaddr &&
		    va - segs[i].vaddr < segs[i].filesz) {
			*off = segs[i].offset + (va - segs[i].vaddr);
			return true;
		}
	return false;
}

/* Reads the dynamic section's entries as (tag, value) pairs into o, strtab
 * excepted; *strtab_va and o->strsz set. */
static bool read_dynamic(int fd, const struct seg *dyn, bool is64, struct dynobj *o,
			 uint64_t *strtab_va)
{
	size_t esz = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	size_t bytes = dyn->filesz < MAX_DYN_BYTES ? (size_t)dyn->filesz : MAX_DYN_BYTES;
	unsigned char *buf = xmalloc(bytes ? bytes : 1);
	if (!buf || !read_at(fd, buf, bytes, dyn->offset)) {
		xfree(buf);
		return false;
	}
	*strtab_va = UINT64_MAX;
	for (size_t i = 0; i + esz <= bytes; i += esz) {
		uint64_t tag, val;
		if (is64) {
			Elf64_Dyn d;
			memcpy(&d, buf + i, sizeof(d));
			tag = (uint64_t)d.d_tag, val = d.d_un.d_val;
		} else {
			Elf32_Dyn d;
			memcpy(&d, buf + i, sizeof(d));
			tag = (uint64_t)(int64_t)d.d_tag, val = d.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		if (tag == DT_NEEDED) {
			if (xgrow((void **)&o->needed, &o->cap_needed, o->n_needed + 1,
				  sizeof(*o->needed)) < 0)
				break; /* the names read so far are walked */
			o->needed[o->n_needed++] = val;
		} else if (tag == DT_STRTAB)
			*strtab_va = val;
		else if (tag == DT_STRSZ)
			o->strsz = val < MAX_STRTAB ? (size_t)val : MAX_STRTAB;
		else if (tag == DT_RPATH)
			o->rpath = (int64_t)val;
		else if (tag == DT_RUNPATH)
			o->runpath = (int64_t)val;
	}
	xfree(buf);
	return *strtab_va != UINT64_MAX;
}

/* Fills o from the ELF file at o->path. Returns 1 (dynamic object read),
 * 0 (a static program: nothing to load), -1 (not a readable native ELF). */
static int dynobj__read(struct dynobj *o)
{
	o->rpath = o->runpath = -1;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct seg segs[MAX_PHDRS];
	size_t n = read_segs(fd, segs, MAX_PHDRS);
	unsigned char cls = 0;
	int rc = n ? 0 : -1;
	const struct seg *dyn = NULL;
	for (size_t i = 0; i < n; i++)
		if (segs[i].type == PT_DYNAMIC)
			dyn = &segs[i];
	uint64_t strtab_va, strtab_off;
	if (dyn && read_at(fd, &cls, 1, EI_CLASS)) {
		rc = -1;
		if (read_dynamic(fd, dyn, cls == ELFCLASS64, o, &strtab_va) &&
		    vaddr_offset(segs, n, strtab_va, &strtab_off) &&
		    (o->strtab = xmalloc(o->strsz + 1)) &&
		    read_at(fd, o->strtab, o->strsz, strtab_off)) {
			o->strtab[o->strsz] = '\0';
			rc = 1;
		}
	}
	close(fd);
	return rc;
}

static const char *dynobj__str(const struct dynobj *o, int64_t off)
{
	return off >= 0 && (uint64_t)off < o->strsz ? o->strtab + off : NULL;
}

static void dynobj__release(struct dynobj *o)
{
	xfree(o->path);
	xfree(o->strtab);
	xfree(o->needed);
	memset(o, 0, sizeof(*o));
}

/* The walk's state: objects to read (a queue), names already loaded. */
struct walk {
	struct dynobj objs[MAX_OBJECTS];
	size_t n_objs;
	char *names[MAX_OBJECTS * 4];
	size_t n_names;
	const char *ldlp, *cwd;
	const char *tool_rpath; /* the tool's DT_RPATH when it has no DT_RUNPATH */
	char *tool_origin;
	struct text key;
};

/* dir joined with name; $ORIGIN expanded to origin, a relative dir taken
 * from cwd. NULL when dir holds another dynamic string token ($LIB,
 * $PLATFORM) or memory ran out. */
static char *candidate(const char *dir, size_t dlen, const char *origin, const char *cwd,
		       const char *name)
{
	char *d = xstrndup(dir, dlen);
	if (!d)
		return NULL;
	char *out = NULL;
	const char *rest = NULL;
	if (strncmp(d, "$ORIGIN", 7) == 0 && (d[7] == '/' || !d[7]))
		rest = d + 7;
	else if (strncmp(d, "${ORIGIN}", 9) == 0 && (d[9] == '/' || !d[9]))
		rest = d + 9;
	if (rest && origin)
		out = xasprintf("%s%s/%s", origin, rest, name);
	else if (!rest && !strchr(d, '$') && d[0] == '/')
		out = xasprintf("%s/%s", d, name);
	else if (!rest && !strchr(d, '$')) /* "" is the current directory */
		out = xasprintf("%s/%s/%s", cwd ? cwd : ".", d[0] ? d : ".", name);
	xfree(d);
	return out;
}

static char *dirname_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, slash > path ? (size_t)(slash - path) : 1) : NULL;
}

/* The first file `name` in the colon-separated list, or NULL. */
static char *search_list(const char *list, const char *origin, const char *cwd, const char *name)
{
	for (const char *p = list; p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *c = candidate(p, n, origin, cwd, name);
		struct stat st;
		if (c && stat(c, &st) == 0 && S_ISREG(st.st_mode))
			return c;
		xfree(c);
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* Every variant of `name` the loader may take from LD_LIBRARY_PATH directory
 * d (glibc-hwcaps/<level>/, tls/, d itself) enters the key; returns the
 * first found (hwcaps first, as ld.so prefers them), or NULL. */
static char *ldlp_dir_lookup(struct walk *w, const char *d, size_t dlen, const char *name)
{
	static const char *const subs[] = {"glibc-hwcaps/x86-64-v4/", "glibc-hwcaps/x86-64-v3/",
					   "glibc-hwcaps/x86-64-v2/", "glibc-hwcaps/power10/",
					   "glibc-hwcaps/power9/", "glibc-hwcaps/z16/",
					   "glibc-hwcaps/z15/", "glibc-hwcaps/z14/",
					   "glibc-hwcaps/z13/", "tls/", ""};
	char *first = NULL, id[128];
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char *sub = xasprintf("%s%s", subs[i], name);
		char *c = sub ? candidate(d, dlen, w->tool_origin, w->cwd, sub) : NULL;
		xfree(sub);
		if (c && file_id(c, id, sizeof(id))) {
			text_add(&w->key, c, id);
			if (!first) {
				first = c;
				continue;
			}
		}
		xfree(c);
	}
	return first;
}

static char *search_ldlp(struct walk *w, const char *name)
{
	for (const char *p = w->ldlp; p && p[0];) {
		const char *colon = strpbrk(p, ":;");
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *c = ldlp_dir_lookup(w, p, n, name);
		if (c)
			return c;
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* Queues the object at path (taken) to have its own DT_NEEDED walked. */
static void walk_queue(struct walk *w, char *path)
{
	if (!path || w->n_objs == MAX_OBJECTS) {
		xfree(path);
		return;
	}
	struct dynobj *o = &w->objs[w->n_objs];
	memset(o, 0, sizeof(*o));
	o->path = path;
	w->n_objs++;
}

static bool walk_seen(struct walk *w, const char *name)
{
	for (size_t i = 0; i < w->n_names; i++)
		if (strcmp(w->names[i], name) == 0)
			return true;
	if (w->n_names < sizeof(w->names) / sizeof(w->names[0]))
		w->names[w->n_names++] = xstrdup(name);
	return false;
}

/* Resolves one DT_NEEDED name of object o as ld.so would, keying it when
 * LD_LIBRARY_PATH provides it, and queues what it found. */
static void walk_needed(struct walk *w, const struct dynobj *o, const char *origin,
			const char *name)
{
	if (strchr(name, '/') || walk_seen(w, name))
		return; /* a path is loaded as named; a name loaded once */
	const char *runpath = dynobj__str(o, o->runpath);
	const char *rpath = runpath ? NULL : dynobj__str(o, o->rpath);
	char *found = rpath ? search_list(rpath, origin, w->cwd, name) : NULL;
	if (!found && !runpath && w->tool_rpath)
		found = search_list(w->tool_rpath, w->tool_origin, w->cwd, name);
	if (!found)
		found = search_ldlp(w, name);
	if (!found && runpath)
		found = search_list(runpath, origin, w->cwd, name);
	if (!found) /* ld.so.cache's libraries live there: walked, never keyed */
		found = search_list(DEFAULT_DIRS, NULL, NULL, name);
	walk_queue(w, found);
}

/* Reads the i-th queued object and resolves its DT_NEEDED. Returns false
 * when object 0 (the tool) is not a readable native ELF. */
static bool walk_object(struct walk *w, size_t i)
{
	struct dynobj *o = &w->objs[i];
	int rc = dynobj__read(o);
	if (rc <= 0)
		return !(i == 0 && rc < 0);
	char *origin = i == 0 ? xstrdup(w->tool_origin) : dirname_of(o->path);
	if (i == 0 && o->runpath < 0)
		w->tool_rpath = dynobj__str(o, o->rpath);
	for (size_t k = 0; k < o->n_needed; k++) {
		const char *name = dynobj__str(o, (int64_t)o->needed[k]);
		if (name && name[0])
			walk_needed(w, o, origin, name);
	}
	xfree(origin);
	return true;
}

/* LD_PRELOAD's objects: each keyed (by its path's identity, or by its name
 * when not found) and queued after the tool, as ld.so loads them. */
static void walk_preload(struct walk *w, const char *preload)
{
	for (const char *p = preload; p && *p;) {
		size_t n = strcspn(p, " :\t\n");
		char *name = n ? xstrndup(p, n) : NULL;
		char id[128];
		if (name && strchr(name, '/')) {
			char *c = name[0] == '/' ? xstrdup(name)
						 : xasprintf("%s/%s", w->cwd ? w->cwd : ".", name);
			text_add(&w->key, name, c && file_id(c, id, sizeof(id)) ? id : "@?");
			walk_seen(w, name);
			walk_queue(w, c);
		} else if (name && !walk_seen(w, name)) {
			char *c = search_ldlp(w, name);
			if (!c)
				text_add(&w->key, name, "@default");
			walk_queue(w, c);
		}
		xfree(name);
		p += n;
		p += strspn(p, " :\t\n");
	}
}

/* The walk itself: *out as tool_env_identity's. */
static int walk_tool(const char *prog, const struct exec_request *req, const char *ldlp,
		     const char *preload, char **out)
{
	struct walk *w = xcalloc(1, sizeof(*w));
	char *real = w ? realpath(prog, NULL) : NULL;
	if (!w || !(w->objs[0].path = xstrdup(prog))) {
		free(real);
		xfree(w);
		return -ENOMEM;
	}
	w->n_objs = 1;
	w->ldlp = ldlp;
	w->cwd = req->cwd;
	w->tool_origin = dirname_of(real ? real : prog); /* ld.so: the resolved path */
	free(real);
	walk_preload(w, preload);
	bool elf = walk_object(w, 0);
	for (size_t i = 1; elf && i < w->n_objs; i++)
		walk_object(w, i);
	if (!elf && ldlp && ldlp[0]) /* not ELF: what it runs may load anything */
		text_add(&w->key, "LD_LIBRARY_PATH=", ldlp);
	int rc = w->key.failed ? -ENOMEM : 0;
	if (rc == 0)
		*out = w->key.s;
	else
		xfree(w->key.s);
	for (size_t i = 0; i < w->n_objs; i++)
		dynobj__release(&w->objs[i]);
	for (size_t i = 0; i < w->n_names; i++)
		xfree(w->names[i]);
	xfree(w->tool_origin);
	xfree(w);
	return rc;
}

void tool_env_memo__release(struct tool_env_memo *m)
{
	for (size_t i = 0; i < TOOL_ENV_MEMO; i++) {
		xfree(m->in[i]);
		xfree(m->out[i]);
	}
	memset(m, 0, sizeof(*m));
}

static char *memo_in(const char *prog, const char *ldlp, const char *preload, const char *cwd,
		     size_t *len)
{
	const char *parts[] = {prog, ldlp ? ldlp : "", preload ? preload : "", cwd ? cwd : ""};
	size_t n = 0;
	for (size_t i = 0; i < 4; i++)
		n += strlen(parts[i]) + 1;
	char *s = xmalloc(n);
	if (!s)
		return NULL;
	*len = 0;
	for (size_t i = 0; i < 4; i++) {
		size_t l = strlen(parts[i]) + 1;
		memcpy(s + *len, parts[i], l);
		*len += l;
	}
	return s;
}

int tool_env_identity(struct tool_env_memo *memo, const char *prog,
		      const struct exec_request *req, char **out)
{
	*out = NULL;
	const char *ldlp = child_env(req, "LD_LIBRARY_PATH");
	const char *preload = child_env(req, "LD_PRELOAD");
	if ((!ldlp || !ldlp[0]) && (!preload || !preload[0]))
		return 0;
	size_t len = 0;
	char *in = memo_in(prog, ldlp, preload, req->cwd, &len);
	if (!in)
		return -ENOMEM;
	for (size_t i = 0; i < TOOL_ENV_MEMO; i++)
		if (memo->in[i] && memo->in_len[i] == len && memcmp(memo->in[i], in, len) == 0) {
			xfree(in);
			if (memo->out[i] && !(*out = xstrdup(memo->out[i])))
				return -ENOMEM;
			return 0;
		}
	int rc = walk_tool(prog, req, ldlp, preload, out);
	char *keep = rc == 0 && *out ? xstrdup(*out) : NULL;
	if (rc < 0 || (*out && !keep)) {
		xfree(in);
		return rc;
	}
	size_t slot = memo->next++ % TOOL_ENV_MEMO;
	xfree(memo->in[slot]);
	xfree(memo->out[slot]);
	memo->in[slot] = in;
	memo->in_len[slot] = len;
	memo->out[slot] = keep;
	return 0;
}
