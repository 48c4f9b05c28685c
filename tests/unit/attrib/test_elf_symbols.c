// SPDX-License-Identifier: BSD-3-Clause
/* The ELF reader's symbols (attrib/elf.h: ELF_READ_SYMBOLS, the sized
 * functions; ELF_READ_STARTS, the starts symbol keys are chosen from)
 * against a reference written out here the way the reader computed them
 * before it sorted each table once by radix: every entry filtered, sorted
 * by comparison (functions by start then widest first, ties in table
 * order), aliases merged. The same arrays, names included, on thousands of
 * random symbol tables (ELF64 and ELF32, aliases, every kind of section
 * index, sizes that overflow, names past the table) and on real binaries:
 * this machine's libc, LAMMPS and Open MPI where installed, a program built
 * here from the symbol-key fixtures, with .symtab and stripped to .dynsym. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "self_libc.h"
#define TMPDIR_TAG "elfsyms"
#include "tmpdir.h"

#define FIX TEST_SOURCE_DIR "/tests/fixtures/attrib/"

/* ---- the reference: the reader's former algorithm, on a raw image ---- */

static uint64_t le(const uint8_t *p, size_t len, uint64_t off, int size)
{
	uint64_t v = 0;
	if (off > len || (uint64_t)size > len - off)
		return 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | p[off + (uint64_t)i];
	return v;
}

struct ref_sym {
	uint64_t value, size, idx;
	unsigned type, shndx;
	const char *name;
};

struct ref {
	struct elf_start *starts;
	size_t nr_starts;
	struct elf_func *funcs; /* names borrowed from the image */
	size_t nr_funcs;
};

static int ref_start_cmp(const void *a, const void *b)
{
	const struct elf_start *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static int ref_func_cmp(const void *a, const void *b)
{
	const struct ref_sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx); /* table order: a stable sort's */
}

/* The symbol table the reader picks (.symtab, else .dynsym), decoded. */
static struct ref_sym *ref_table(const uint8_t *p, size_t len, size_t *n, uint64_t *shnum_out,
				 bool **alloc_out)
{
	bool is64 = p[4] == 2;
	uint64_t shoff = is64 ? le(p, len, 40, 8) : le(p, len, 32, 4);
	uint64_t shentsize = le(p, len, is64 ? 58 : 46, 2), shnum = le(p, len, is64 ? 60 : 48, 2);
	bool *alloc = xcalloc(shnum + 1, sizeof(*alloc));
	int64_t symtab = -1, dynsym = -1;
	for (uint64_t i = 0; i < shnum; i++) {
		uint64_t b = shoff + i * shentsize;
		uint32_t type = (uint32_t)le(p, len, b + 4, 4);
		alloc[i] = (is64 ? le(p, len, b + 8, 8) : le(p, len, b + 8, 4)) & SHF_ALLOC;
		if (type == SHT_SYMTAB && symtab < 0)
			symtab = (int64_t)i;
		if (type == SHT_DYNSYM && dynsym < 0)
			dynsym = (int64_t)i;
	}
	*shnum_out = shnum, *alloc_out = alloc, *n = 0;
	int64_t t = symtab >= 0 ? symtab : dynsym;
	if (t < 0)
		return NULL;
	uint64_t b = shoff + (uint64_t)t * shentsize;
	uint64_t off = is64 ? le(p, len, b + 24, 8) : le(p, len, b + 16, 4);
	uint64_t size = is64 ? le(p, len, b + 32, 8) : le(p, len, b + 20, 4);
	uint64_t link = le(p, len, b + (is64 ? 40 : 24), 4), es = is64 ? 24 : 16;
	uint64_t sb = shoff + link * shentsize;
	uint64_t soff = link < shnum ? (is64 ? le(p, len, sb + 24, 8) : le(p, len, sb + 16, 4)) : 0;
	uint64_t ssize = link < shnum ? (is64 ? le(p, len, sb + 32, 8) : le(p, len, sb + 20, 4)) : 0;
	if (le(p, len, b + 4, 4) == SHT_NOBITS || off > len || size > len - off)
		return NULL;
	struct ref_sym *v = xcalloc(size / es + 1, sizeof(*v));
	for (uint64_t i = 0; i < size / es; i++) {
		uint64_t e = off + i * es;
		uint64_t name = le(p, len, e, 4);
		v[i] = (struct ref_sym){
			.value = is64 ? le(p, len, e + 8, 8) : le(p, len, e + 4, 4),
			.size = is64 ? le(p, len, e + 16, 8) : le(p, len, e + 8, 4),
			.idx = i,
			.type = (unsigned)le(p, len, e + (is64 ? 4 : 12), 1) & 15,
			.shndx = (unsigned)le(p, len, e + (is64 ? 6 : 14), 2),
		};
		bool in = soff <= len && ssize <= len - soff && name < ssize;
		const char *s = in ? (const char *)p + soff + name : NULL;
		v[i].name = s && memchr(s, '\0', ssize - name) ? s : "";
	}
	*n = size / es;
	return v;
}

static struct ref reference(const uint8_t *p, size_t len, unsigned flags)
{
	struct ref r = {0};
	size_t n = 0;
	uint64_t shnum = 0;
	bool *alloc = NULL;
	struct ref_sym *v = ref_table(p, len, &n, &shnum, &alloc);
	r.starts = xcalloc(n + 1, sizeof(*r.starts));
	struct ref_sym *f = xcalloc(n + 1, sizeof(*f));
	size_t k = 0, nf = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ref_sym *s = &v[i];
		if (i >= 1 && s->shndx != SHN_UNDEF && s->type != STT_SECTION && s->type != STT_FILE)
			r.starts[k++] = (struct elf_start){
				.start = s->value, .min_size = s->size, .max_size = s->size,
				.plain = (s->type == STT_FUNC || s->type == STT_GNU_IFUNC) &&
					 s->shndx < SHN_LORESERVE && s->shndx < shnum && alloc[s->shndx] &&
					 s->size > 0 && s->value + s->size > s->value};
		if ((s->type == STT_FUNC || s->type == STT_GNU_IFUNC) && s->shndx != SHN_UNDEF &&
		    s->shndx != SHN_ABS && s->size && s->value + s->size >= s->value)
			f[nf++] = *s;
	}
	qsort(r.starts, k, sizeof(*r.starts), ref_start_cmp);
	for (size_t i = 0; i < k; i++) {
		struct elf_start *last = r.nr_starts ? &r.starts[r.nr_starts - 1] : NULL;
		if (last && last->start == r.starts[i].start) {
			if (r.starts[i].min_size < last->min_size)
				last->min_size = r.starts[i].min_size;
			if (r.starts[i].max_size > last->max_size)
				last->max_size = r.starts[i].max_size;
			last->plain = last->plain && r.starts[i].plain;
		} else {
			r.starts[r.nr_starts++] = r.starts[i];
		}
	}
	if (!(flags & ELF_READ_STARTS) || n < 2)
		r.nr_starts = 0;
	qsort(f, nf, sizeof(*f), ref_func_cmp);
	r.funcs = xcalloc(nf + 1, sizeof(*r.funcs));
	for (size_t i = 0; (flags & ELF_READ_SYMBOLS) && i < nf; i++)
		if (!r.nr_funcs || r.funcs[r.nr_funcs - 1].start != f[i].value)
			r.funcs[r.nr_funcs++] = (struct elf_func){f[i].value, f[i].size,
								  (char *)f[i].name};
	xfree(f), xfree(v), xfree(alloc);
	return r;
}

/* The reader's arrays equal the reference's, element by element. */
static void agree(const uint8_t *p, size_t len, unsigned flags, const char *what)
{
	struct elf_info info;
	struct err e = {0};
	CHECK_INT(elf_info__parse(&info, p, len, flags, &e), 0);
	struct ref r = reference(p, len, flags);
	if (info.nr_starts != r.nr_starts || info.nr_funcs != r.nr_funcs)
		fprintf(stderr, "%s: %zu starts, %zu functions; expected %zu, %zu\n", what,
			info.nr_starts, info.nr_funcs, r.nr_starts, r.nr_funcs);
	CHECK_INT(info.nr_starts, r.nr_starts);
	CHECK_INT(info.nr_funcs, r.nr_funcs);
	for (size_t i = 0; i < r.nr_starts; i++) {
		const struct elf_start *a = &info.starts[i], *b = &r.starts[i];
		if (a->start != b->start || a->min_size != b->min_size ||
		    a->max_size != b->max_size || a->plain != b->plain)
			fprintf(stderr, "%s: start %zu differs at 0x%" PRIx64 "\n", what, i, b->start);
		CHECK(a->start == b->start && a->min_size == b->min_size &&
		      a->max_size == b->max_size && a->plain == b->plain);
	}
	for (size_t i = 0; i < r.nr_funcs; i++) {
		const struct elf_func *a = &info.funcs[i], *b = &r.funcs[i];
		if (a->start != b->start || a->size != b->size || strcmp(a->name, b->name))
			fprintf(stderr, "%s: function %zu: 0x%" PRIx64 "+%" PRIu64 " %s, expected 0x%"
				PRIx64 "+%" PRIu64 " %s\n", what, i, a->start, a->size, a->name,
				b->start, b->size, b->name);
		CHECK(a->start == b->start && a->size == b->size && !strcmp(a->name, b->name));
	}
	xfree(r.starts), xfree(r.funcs);
	elf_info__release(&info);
}

/* ---- random symbol tables ---- */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* An ELF image: sections null, .text (alloc), .symtab, .strtab,
 * .shstrtab, .comment (not alloc); nsym random symbols. Malloc'd. */
static uint8_t *random_image(uint64_t *seed, bool is64, size_t nsym, size_t *len)
{
	size_t es = is64 ? 24 : 16, eh = is64 ? 64 : 52, sh = is64 ? 64 : 40;
	size_t strsz = 1 + (size_t)(rnd(seed) % 4000);
	bool terminated = rnd(seed) % 4 != 0;
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab\0.comment";
	size_t sym_off = eh, str_off = sym_off + nsym * es, shs_off = str_off + strsz;
	size_t sh_off = (shs_off + sizeof(shstr) + 7) & ~(size_t)7;
	*len = sh_off + 6 * sh;
	uint8_t *p = xcalloc(*len, 1);
	memcpy(p, "\177ELF", 4);
	p[4] = is64 ? 2 : 1, p[5] = 1, p[6] = 1;
#define PUT(off, v, n) do { uint64_t v_ = (v); for (int i_ = 0; i_ < (n); i_++) p[(off) + i_] = (uint8_t)(v_ >> (8 * i_)); } while (0)
	PUT(16, ET_DYN, 2);
	PUT(18, EM_X86_64, 2);
	PUT(is64 ? 40 : 32, sh_off, is64 ? 8 : 4);
	PUT(is64 ? 58 : 46, sh, 2);
	PUT(is64 ? 60 : 48, 6, 2);
	PUT(is64 ? 62 : 50, 4, 2);
	for (size_t i = 0; i < strsz; i++) /* names: letters and NULs */
		p[str_off + i] = rnd(seed) % 5 ? (uint8_t)('a' + rnd(seed) % 26) : 0;
	p[str_off + strsz - 1] = terminated ? 0 : 'z';
	memcpy(p + shs_off, shstr, sizeof(shstr));
	/* name, type, flags, offset, size, link, entsize per section */
	const uint64_t sec[6][7] = {{0, 0, 0, 0, 0, 0, 0},
				    {1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0x1000, 0, 0},
				    {7, SHT_SYMTAB, 0, sym_off, nsym * es, 3, es},
				    {15, SHT_STRTAB, 0, str_off, strsz, 0, 0},
				    {23, SHT_STRTAB, 0, shs_off, sizeof(shstr), 0, 0},
				    {33, SHT_PROGBITS, 0, 0, 0, 0, 0}};
	for (int s = 0; s < 6; s++) {
		size_t b = sh_off + (size_t)s * sh;
		PUT(b, sec[s][0], 4);
		PUT(b + 4, sec[s][1], 4);
		PUT(b + 8, sec[s][2], is64 ? 8 : 4);
		PUT(b + (is64 ? 24 : 16), sec[s][3], is64 ? 8 : 4);
		PUT(b + (is64 ? 32 : 20), sec[s][4], is64 ? 8 : 4);
		PUT(b + (is64 ? 40 : 24), sec[s][5], 4);
		PUT(b + (is64 ? 56 : 36), sec[s][6], is64 ? 8 : 4);
	}
	static const unsigned types[] = {STT_FUNC, STT_FUNC, STT_FUNC, STT_GNU_IFUNC, STT_OBJECT,
					 STT_NOTYPE, STT_SECTION, STT_FILE};
	static const unsigned shndx[] = {1, 1, 1, 1, 5, SHN_UNDEF, SHN_ABS, 0xff10, 9};
	uint64_t few = 1 + rnd(seed) % 64; /* a few distinct values: many aliases */
	for (size_t i = 0; i < nsym; i++) {
		size_t b = sym_off + i * es;
		uint64_t r = rnd(seed), value, size;
		switch (r % 4) {
		case 0: value = 0x1000 + 16 * (rnd(seed) % few); break;
		case 1: value = rnd(seed) % (1ull << 24); break;
		case 2: value = rnd(seed) >> (rnd(seed) % 64); break;
		default: value = ~(uint64_t)0 - rnd(seed) % 64; break;
		}
		size = rnd(seed) % 3 == 0 ? rnd(seed) % 4 * 16 : rnd(seed) % 9 == 0 ? ~(uint64_t)0 - rnd(seed) % 8 : rnd(seed) % 4096;
		if (!is64)
			value &= 0xffffffffu, size &= 0xffffffffu;
		uint64_t name = rnd(seed) % (strsz + 8); /* some past the table */
		unsigned type = types[rnd(seed) % 8], ndx = shndx[rnd(seed) % 9];
		PUT(b, name, 4);
		if (is64) {
			p[b + 4] = (uint8_t)(type | (rnd(seed) % 3) << 4);
			PUT(b + 6, ndx, 2);
			PUT(b + 8, value, 8);
			PUT(b + 16, size, 8);
		} else {
			PUT(b + 4, value, 4);
			PUT(b + 8, size, 4);
			p[b + 12] = (uint8_t)(type | (rnd(seed) % 3) << 4);
			PUT(b + 14, ndx, 2);
		}
	}
#undef PUT
	return p;
}

static void t_random_tables(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t nr = 0;
	for (int round = 0; round < 1500; round++) {
		bool is64 = round % 3 != 0;
		size_t nsym = round % 50 == 0 ? 20000 : (size_t)(rnd(&seed) % 300);
		size_t len;
		uint8_t *img = random_image(&seed, is64, nsym, &len);
		char what[64];
		snprintf(what, sizeof(what), "random table %d (ELF%d, %zu symbols)", round,
			 is64 ? 64 : 32, nsym);
		static const unsigned flags[] = {ELF_READ_SYMBOLS | ELF_READ_STARTS, ELF_READ_SYMBOLS,
						 ELF_READ_STARTS};
		agree(img, len, flags[round % 3], what);
		struct elf_info info;
		struct err e = {0};
		CHECK_INT(elf_info__parse(&info, img, len, ELF_READ_SYMBOLS | ELF_READ_STARTS, &e), 0);
		nr += info.nr_funcs;
		elf_info__release(&info);
		xfree(img);
	}
	CHECK(nr > 10000); /* the tables did hold functions */
}

/* ---- real binaries ---- */

/* Returns how many sized functions the reader found in path. */
static size_t agree_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size > 0);
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	CHECK(m != MAP_FAILED);
	agree(m, (size_t)st.st_size, ELF_READ_SYMBOLS | ELF_READ_STARTS, path);
	struct elf_info info;
	struct err e = {0};
	CHECK_INT(elf_info__read(&info, path, ELF_READ_SYMBOLS | ELF_READ_STARTS, &e), 0);
	size_t n = info.nr_funcs;
	elf_info__release(&info);
	munmap(m, (size_t)st.st_size);
	return n;
}

static int run_cmd(struct executor *x, const char *const *argv)
{
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
	struct exec_result res = {0};
	struct err e = {0};
	CHECK_INT(executor__run(x, &req, &res, &e), 0);
	if (res.exit_code && res.exit_code != EXEC_NOT_FOUND)
		fprintf(stderr, "%s: %s\n", argv[0], res.err ? res.err : "");
	int rc = res.exit_code;
	exec_result__release(&res);
	return rc;
}

static void t_real_binaries(void)
{
	char libc[4096];
	self_libc(libc, sizeof(libc));
	CHECK(agree_file(libc) > 1000);
	CHECK(agree_file("/proc/self/exe") > 10);
	static const char *const installed[] = {"/usr/bin/lmp", "/usr/lib/*/liblammps.so.0",
						"/usr/lib/*/libmpi.so.40"};
	for (size_t i = 0; i < sizeof(installed) / sizeof(*installed); i++) {
		glob_t g;
		if (glob(installed[i], 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			agree_file(g.gl_pathv[k]);
		globfree(&g);
	}
#if defined(__x86_64__)
	struct executor *x = executor__new_real();
	char *d = tmpdir();
	char *exe = xasprintf("%s/keys", d), *lib = xasprintf("%s/libkeys.so", d);
	const char *c1[] = {"gcc", "-O2", "-g0", FIX "symbol_keys.c", FIX "symbol_layout.S", "-o", exe, NULL};
	const char *c2[] = {"gcc", "-O2", "-g0", "-shared", "-fPIC", FIX "symbol_keys.c",
			    FIX "symbol_layout.S", "-o", lib, NULL};
	const char *c3[] = {"strip", "--strip-all", lib, NULL};
	int rc = run_cmd(x, c1);
	if (rc == 0) {
		CHECK_INT(run_cmd(x, c2), 0);
		CHECK(agree_file(exe) > 10);
		rc = run_cmd(x, c3);
		CHECK(rc == 0 || rc == EXEC_NOT_FOUND);
		if (rc == 0)
			CHECK(agree_file(lib) > 5); /* .dynsym only */
	}
	executor__free(x);
	xfree(exe), xfree(lib), xfree(d);
	done();
	if (rc == EXEC_NOT_FOUND)
		SKIP("gcc or strip not installed: the hand-placed aliases of symbol_layout.S "
		     "were not compared (the system's binaries were)");
	CHECK_INT(rc, 0);
#endif
}

static const struct test_case cases[] = {
	{"random_tables", "starts and functions equal the reference on random symbol tables",
	 t_random_tables},
	{"real_binaries", "starts and functions equal the reference on real binaries",
	 t_real_binaries},
};
TEST_MAIN(cases)
