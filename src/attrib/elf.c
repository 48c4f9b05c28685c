// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/elf.h"
#include "attrib/dwarf_line.h"
#include "attrib/dwarf_producer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

#define PT_LOAD 1
#define PT_NOTE 4
#define SHT_SYMTAB 2
#define SHT_NOTE 7
#define SHT_NOBITS 8
#define SHT_DYNSYM 11
#define SHF_ALLOC 0x2
#define SHF_COMPRESSED 0x800
#define STT_FUNC 2
#define STT_SECTION 3
#define STT_FILE 4
#define STT_GNU_IFUNC 10
#define SHN_UNDEF 0
#define SHN_ABS 0xfff1
#define SHN_LORESERVE 0xff00
#define SHN_XINDEX 0xffff
#define EM_X86_64 62
#define EM_AARCH64 183
#define NT_GNU_BUILD_ID 3

/* A bounds-checked view of the image: every read goes through rd(). */
struct image {
	const uint8_t *p;
	size_t len;
	bool is64;
};

static bool in_range(const struct image *im, uint64_t off, uint64_t n)
{
	return off <= im->len && n <= im->len - off;
}

static uint64_t rd(const struct image *im, uint64_t off, int size)
{
	uint64_t v = 0;
	if (!in_range(im, off, (uint64_t)size))
		return 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | im->p[off + (uint64_t)i];
	return v;
}

/* Field readers that pick the ELF32 or ELF64 offset and width. */
#define RD(im, base, off32, sz32, off64, sz64) \
	((im)->is64 ? rd(im, (base) + (off64), sz64) : rd(im, (base) + (off32), sz32))

struct shdr {
	uint32_t name, type, link;
	uint64_t flags, offset, size, entsize;
};

static struct shdr shdr_at(const struct image *im, uint64_t shoff, uint64_t shentsize, uint64_t i)
{
	uint64_t b = shoff + i * shentsize;
	struct shdr s = {
		.name = (uint32_t)rd(im, b, 4),
		.type = (uint32_t)rd(im, b + 4, 4),
		.flags = RD(im, b, 8, 4, 8, 8),
		.offset = RD(im, b, 16, 4, 24, 8),
		.size = RD(im, b, 20, 4, 32, 8),
		.link = (uint32_t)RD(im, b, 24, 4, 40, 4),
		.entsize = RD(im, b, 36, 4, 56, 8),
	};
	return s;
}

/* NUL-terminated string at off inside [tab, tab+tablen), or NULL. */
static const char *str_at(const struct image *im, uint64_t tab, uint64_t tablen, uint64_t off)
{
	if (!in_range(im, tab, tablen) || off >= tablen)
		return NULL;
	const char *s = (const char *)im->p + tab + off;
	if (!memchr(s, '\0', tablen - off))
		return NULL;
	return s;
}

/* A string table read name by name: when it ends with a NUL (as linkers
 * write them), every offset inside it starts a terminated string and no
 * name needs the search str_at() makes (15 000 names of liblammps). */
struct strtab_view {
	const struct image *im;
	uint64_t tab, len;
	bool terminated;
};

static struct strtab_view strtab_view(const struct image *im, uint64_t tab, uint64_t len)
{
	struct strtab_view v = {.im = im, .tab = tab, .len = len};
	v.terminated = len && in_range(im, tab, len) && im->p[tab + len - 1] == '\0';
	return v;
}

static const char *strtab_view__at(const struct strtab_view *v, uint64_t off)
{
	if (v->terminated)
		return off < v->len ? (const char *)v->im->p + v->tab + off : NULL;
	return str_at(v->im, v->tab, v->len, off);
}

static void parse_notes(struct elf_info *out, const struct image *im, uint64_t off, uint64_t size)
{
	if (!in_range(im, off, size))
		return;
	uint64_t end = off + size;
	while (!out->build_id && off + 12 <= end) {
		uint64_t namesz = rd(im, off, 4), descsz = rd(im, off + 4, 4), type = rd(im, off + 8, 4);
		uint64_t name = off + 12, desc = name + ((namesz + 3) & ~3ull);
		uint64_t next = desc + ((descsz + 3) & ~3ull);
		if (next > end || next <= off)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(im->p + name, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= 64) {
			static const char digits[] = "0123456789abcdef";
			char *hex = xmalloc(2 * descsz + 1);
			if (!hex)
				return;
			for (uint64_t i = 0; i < descsz; i++) {
				hex[2 * i] = digits[im->p[desc + i] >> 4];
				hex[2 * i + 1] = digits[im->p[desc + i] & 15];
			}
			hex[2 * descsz] = '\0';
			out->build_id = hex;
		}
		off = next;
	}
}

char *elf_notes_build_id(const void *notes, size_t len)
{
	struct image im = {.p = notes, .len = len, .is64 = true}; /* notes read 4 bytes a field */
	struct elf_info info = {0};
	parse_notes(&info, &im, 0, len);
	return info.build_id;
}

static int parse_phdrs(struct elf_info *out, const struct image *im, struct err *e)
{
	uint64_t phoff = RD(im, 0, 28, 4, 32, 8);
	uint64_t phentsize = RD(im, 0, 42, 2, 54, 2), phnum = RD(im, 0, 44, 2, 56, 2);
	if (phnum == 0)
		return 0;
	if (phentsize < (im->is64 ? 56u : 32u) || !in_range(im, phoff, phnum * phentsize))
		return err_set(e, -EINVAL, ERR_ELF_TRUNCATED,
			       "program headers at offset %llu (%llu x %llu bytes) exceed the file",
			       (unsigned long long)phoff, (unsigned long long)phnum,
			       (unsigned long long)phentsize);
	out->loads = xcalloc(phnum, sizeof(*out->loads));
	if (!out->loads)
		return -ENOMEM;
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t b = phoff + i * phentsize;
		uint32_t type = (uint32_t)rd(im, b, 4);
		if (type == PT_NOTE && !out->build_id)
			parse_notes(out, im, RD(im, b, 4, 4, 8, 8), RD(im, b, 16, 4, 32, 8));
		if (type != PT_LOAD)
			continue;
		struct elf_segment *s = &out->loads[out->nr_loads++];
		s->offset = RD(im, b, 4, 4, 8, 8);
		s->vaddr = RD(im, b, 8, 4, 16, 8);
		s->filesz = RD(im, b, 16, 4, 32, 8);
		s->memsz = RD(im, b, 20, 4, 40, 8);
		s->flags = (uint32_t)RD(im, b, 24, 4, 4, 4);
	}
	return 0;
}

/* A symbol of the table read (its index) under its value, the sort key. */
struct keyed {
	uint64_t key;
	uint64_t i;
};

/* Sorts v by key, stably (ties keep table order, as glibc's merge-sorting
 * qsort kept them), by bytes from the lowest, skipping the bytes every key
 * shares: 3 passes over a 12 MB library's symbols instead of a comparison
 * sort through a function pointer (~60% of reading liblammps' symbols). */
static int sort_keyed(struct keyed *v, size_t n)
{
	uint64_t any = 0, all = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++)
		any |= v[i].key, all &= v[i].key;
	uint64_t differ = any ^ all;
	struct keyed *tmp = differ && n > 1 ? xmalloc(n * sizeof(*v)) : NULL, *from = v, *to = tmp;
	if (differ && n > 1 && !tmp)
		return -ENOMEM;
	for (unsigned shift = 0; tmp && shift < 64; shift += 8) {
		if (!((differ >> shift) & 0xff))
			continue;
		size_t at[257] = {0};
		for (size_t i = 0; i < n; i++)
			at[((from[i].key >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			at[b + 1] += at[b];
		for (size_t i = 0; i < n; i++)
			to[at[(from[i].key >> shift) & 0xff]++] = from[i];
		struct keyed *t = from;
		from = to, to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	xfree(tmp);
	return 0;
}

/* The symbols of table `tab` by value (stable), *nr of them: every entry
 * but undefined ones, what read_starts() and read_symbols() both select
 * from. *sorted NULL (and 0) for a table out of the file. */
static int sort_symbols(const struct image *im, const struct shdr *tab, struct keyed **sorted,
			size_t *nr)
{
	uint64_t entsize = im->is64 ? 24 : 16;
	*sorted = NULL, *nr = 0;
	if (tab->type == SHT_NOBITS || !in_range(im, tab->offset, tab->size))
		return 0;
	uint64_t n = tab->size / entsize;
	struct keyed *v = xcalloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t k = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b = tab->offset + i * entsize;
		if ((unsigned)RD(im, b, 14, 2, 6, 2) != SHN_UNDEF)
			v[k++] = (struct keyed){RD(im, b, 4, 4, 8, 8), i};
	}
	if (sort_keyed(v, k) < 0) {
		xfree(v);
		return -ENOMEM;
	}
	*sorted = v, *nr = k;
	return 0;
}

/* Names out->funcs[nr_funcs] after symbol entry b and keeps it. */
static int keep_func(struct elf_info *out, const struct image *im,
		     const struct strtab_view *names, uint64_t b)
{
	const char *name = strtab_view__at(names, rd(im, b, 4));
	if (!(out->funcs[out->nr_funcs].name = xstrdup(name ? name : "")))
		return -ENOMEM;
	out->nr_funcs++;
	return 0;
}

/* FUNC and IFUNC extents of the table (ELF_READ_SYMBOLS) from its sorted
 * symbols: of aliases at one address the widest, the first listed of
 * equally wide ones (what sorting by start then width kept). */
static int read_symbols(struct elf_info *out, const struct image *im, const struct shdr *tab,
			const struct shdr *strtab, const struct keyed *sorted, size_t nr)
{
	uint64_t entsize = im->is64 ? 24 : 16;
	struct strtab_view names = strtab_view(im, strtab->offset, strtab->size);
	out->funcs = xcalloc(nr ? nr : 1, sizeof(*out->funcs));
	if (!out->funcs)
		return -ENOMEM;
	uint64_t best = 0; /* the entry of the current start's widest */
	bool have = false;
	for (size_t r = 0; r < nr; r++) {
		uint64_t b = tab->offset + sorted[r].i * entsize;
		unsigned type = (unsigned)RD(im, b, 12, 1, 4, 1) & 15;
		unsigned shndx = (unsigned)RD(im, b, 14, 2, 6, 2);
		uint64_t value = sorted[r].key, size = RD(im, b, 8, 4, 16, 8);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_ABS || size == 0 ||
		    value + size < value)
			continue;
		struct elf_func *cur = &out->funcs[out->nr_funcs];
		if (have && value == cur->start) {
			if (size > cur->size)
				cur->size = size, best = b;
			continue;
		}
		if (have && keep_func(out, im, &names, best) < 0)
			return -ENOMEM;
		out->funcs[out->nr_funcs] = (struct elf_func){.start = value, .size = size};
		best = b, have = true;
	}
	return have ? keep_func(out, im, &names, best) : 0;
}

/* The symbol starts of table `tab` (ELF_READ_STARTS) from its sorted
 * symbols: every defined symbol but sections and files, so that no start
 * LLVM may choose from is missed; plain only where every LLVM keeps the
 * symbol the same way. */
static int read_starts(struct elf_info *out, const struct image *im, const struct shdr *tab,
		       uint64_t shoff, uint64_t shentsize, uint64_t shnum,
		       const struct keyed *sorted, size_t nr)
{
	uint64_t entsize = im->is64 ? 24 : 16;
	struct elf_start *v = xcalloc(nr ? nr : 1, sizeof(*v));
	bool *alloc = xcalloc(shnum ? shnum : 1, sizeof(*alloc)); /* by section index */
	if (!v || !alloc) {
		xfree(v);
		xfree(alloc);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < shnum; i++)
		alloc[i] = shdr_at(im, shoff, shentsize, i).flags & SHF_ALLOC;
	size_t w = 0;
	for (size_t r = 0; r < nr; r++) {
		if (sorted[r].i == 0) /* entry 0 is the null symbol */
			continue;
		uint64_t b = tab->offset + sorted[r].i * entsize;
		unsigned type = (unsigned)RD(im, b, 12, 1, 4, 1) & 15;
		unsigned shndx = (unsigned)RD(im, b, 14, 2, 6, 2);
		uint64_t value = sorted[r].key, size = RD(im, b, 8, 4, 16, 8);
		if (type == STT_SECTION || type == STT_FILE)
			continue;
		bool in_alloc = shndx < SHN_LORESERVE && shndx < shnum && alloc[shndx];
		bool plain = (type == STT_FUNC || type == STT_GNU_IFUNC) && in_alloc && size > 0 &&
			     value + size > value;
		struct elf_start *last = w ? &v[w - 1] : NULL;
		if (last && last->start == value) {
			last->min_size = size < last->min_size ? size : last->min_size;
			last->max_size = size > last->max_size ? size : last->max_size;
			last->plain = last->plain && plain;
			continue;
		}
		v[w++] = (struct elf_start){.start = value, .min_size = size, .max_size = size,
					    .plain = plain};
	}
	xfree(alloc);
	out->starts = v;
	out->nr_starts = w;
	return 0;
}

bool elf_info__symbol_key(const struct elf_info *info, uint64_t vaddr, uint64_t *key)
{
	if (info->machine != EM_X86_64 && info->machine != EM_AARCH64)
		return false;
	size_t lo = 0, hi = info->nr_starts;
	while (lo < hi) { /* first start > vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (info->starts[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !info->starts[lo - 1].plain)
		return false;
	const struct elf_start *s = &info->starts[lo - 1];
	uint64_t off = vaddr - s->start;
	if (off < s->min_size)
		*key = s->start; /* named after it, whichever alias LLVM kept */
	else if (off >= s->max_size)
		*key = s->start + s->max_size; /* past every alias: no name */
	else
		return false;
	return true;
}

/* .gnu_debuglink: a file name, NUL, padding, a CRC. One that cannot be read
 * counts as debug information (a symbolizer might find the file). */
static int parse_debuglink(struct elf_info *out, const struct image *im, const struct shdr *s)
{
	const char *p = (const char *)im->p + s->offset;
	const char *z = s->type != SHT_NOBITS && in_range(im, s->offset, s->size)
				? memchr(p, '\0', (size_t)s->size) : NULL;
	if (!z || z == p) {
		out->has_debug_sections = true;
		return 0;
	}
	xfree(out->debuglink);
	out->debuglink = xstrndup(p, (size_t)(z - p));
	return out->debuglink ? 0 : -ENOMEM;
}

/* .comment: NUL-separated strings, one per toolchain (repeated by every
 * object file it built); kept distinct, printable, bounded. */
#define COMMENT_ITEMS 16

static bool printable(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] >= 0x7f)
			return false;
	return len > 0;
}

static int parse_comment(struct elf_info *out, const struct image *im, const struct shdr *s)
{
	if (out->comment || s->type == SHT_NOBITS || !in_range(im, s->offset, s->size))
		return 0;
	char buf[ELF_COMMENT_MAX + 1];
	size_t n = 0, at[COMMENT_ITEMS], lens[COMMENT_ITEMS];
	int items = 0;
	const char *p = (const char *)im->p + s->offset, *end = p + s->size;
	while (p < end && items < COMMENT_ITEMS) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t len = z ? (size_t)(z - p) : (size_t)(end - p);
		bool ok = printable(p, len) && n + (n ? 2 : 0) + len <= ELF_COMMENT_MAX;
		for (int i = 0; ok && i < items; i++)
			ok = !(lens[i] == len && memcmp(buf + at[i], p, len) == 0);
		if (ok) {
			if (n) {
				memcpy(buf + n, "; ", 2);
				n += 2;
			}
			memcpy(buf + n, p, len);
			at[items] = n, lens[items++] = len;
			n += len;
		}
		p += len + 1;
	}
	buf[n] = '\0';
	if (n && !(out->comment = xstrdup(buf)))
		return -ENOMEM;
	return 0;
}

/* The DWARF sections DW_AT_producer needs, when stored plain. */
static void dwarf_section(struct dwarf_sections *d, const struct image *im, const char *nm,
			  const struct shdr *s)
{
	if (s->type == SHT_NOBITS || (s->flags & SHF_COMPRESSED) || !in_range(im, s->offset, s->size))
		return;
	const uint8_t *p = im->p + s->offset;
	size_t n = (size_t)s->size;
	if (!strcmp(nm, ".debug_info"))
		d->info = p, d->info_len = n;
	else if (!strcmp(nm, ".debug_abbrev"))
		d->abbrev = p, d->abbrev_len = n;
	else if (!strcmp(nm, ".debug_str"))
		d->str = p, d->str_len = n;
	else if (!strcmp(nm, ".debug_line_str"))
		d->line_str = p, d->line_str_len = n;
	else if (!strcmp(nm, ".debug_str_offsets"))
		d->str_offsets = p, d->str_offsets_len = n;
}

/* The undefined names of .dynsym `tab` (ELF_READ_IMPORTS). */
static int read_imports(struct elf_info *out, const struct image *im, const struct shdr *tab,
			const struct shdr *strtab)
{
	uint64_t entsize = im->is64 ? 24 : 16;
	if (tab->type == SHT_NOBITS || !in_range(im, tab->offset, tab->size))
		return 0;
	uint64_t n = tab->size / entsize;
	out->imports = xcalloc(n ? n : 1, sizeof(*out->imports));
	if (!out->imports)
		return -ENOMEM;
	for (uint64_t i = 1; i < n; i++) { /* entry 0 is the null symbol */
		uint64_t b = tab->offset + i * entsize;
		if ((unsigned)RD(im, b, 14, 2, 6, 2) != SHN_UNDEF)
			continue;
		const char *name = str_at(im, strtab->offset, strtab->size, rd(im, b, 4));
		if (!name || !*name)
			continue;
		if (!(out->imports[out->nr_imports] = xstrdup(name)))
			return -ENOMEM;
		out->nr_imports++;
	}
	return 0;
}

static int parse_shdrs(struct elf_info *out, const struct image *im, unsigned flags, struct err *e)
{
	uint64_t shoff = RD(im, 0, 32, 4, 40, 8), shentsize = RD(im, 0, 46, 2, 58, 2);
	uint64_t shnum = RD(im, 0, 48, 2, 60, 2), shstrndx = RD(im, 0, 50, 2, 62, 2);
	if (shoff == 0)
		return 0; /* no section headers: a valid (if unusual) object */
	if (shentsize < (im->is64 ? 64u : 40u) || !in_range(im, shoff, shentsize))
		return err_set(e, -EINVAL, ERR_ELF_TRUNCATED,
			       "section headers at offset %llu exceed the file",
			       (unsigned long long)shoff);
	struct shdr s0 = shdr_at(im, shoff, shentsize, 0);
	if (shnum == 0)
		shnum = s0.size; /* extended numbering */
	if (shstrndx == SHN_XINDEX)
		shstrndx = s0.link;
	if (!in_range(im, shoff, shnum * shentsize) || shnum > im->len / shentsize)
		return err_set(e, -EINVAL, ERR_ELF_TRUNCATED,
			       "%llu section headers at offset %llu exceed the file",
			       (unsigned long long)shnum, (unsigned long long)shoff);
	struct shdr names = shstrndx < shnum ? shdr_at(im, shoff, shentsize, shstrndx) : (struct shdr){0};
	int64_t symtab = -1, dynsym = -1;
	struct dwarf_sections dw = {0};
	for (uint64_t i = 0; i < shnum; i++) {
		struct shdr s = shdr_at(im, shoff, shentsize, i);
		const char *nm = str_at(im, names.offset, names.size, s.name);
		if (s.type == SHT_SYMTAB && symtab < 0)
			symtab = (int64_t)i;
		if (s.type == SHT_DYNSYM && dynsym < 0)
			dynsym = (int64_t)i;
		if (nm && (!strcmp(nm, ".debug_info") || !strcmp(nm, ".zdebug_info")) &&
		    s.type != SHT_NOBITS)
			out->has_debug_info = true;
		if (nm && !strcmp(nm, ".zdebug_line"))
			out->debug_line_md5 = -1;
		if (nm && s.type != SHT_NOBITS &&
		    (!strncmp(nm, ".debug_", 7) || !strncmp(nm, ".zdebug_", 8) ||
		     !strcmp(nm, ".gnu_debugdata")))
			out->has_debug_sections = true;
		if (nm && !strcmp(nm, ".gnu_debuglink") && parse_debuglink(out, im, &s) < 0)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		if (nm && !strcmp(nm, ".debug_line") && s.type != SHT_NOBITS)
			out->debug_line_md5 = (s.flags & SHF_COMPRESSED) || !in_range(im, s.offset, s.size)
						      ? -1
						      : dwarf_line_md5(im->p + s.offset, (size_t)s.size);
		if (s.type == SHT_NOTE && !out->build_id)
			parse_notes(out, im, s.offset, s.size);
		if (nm && !strcmp(nm, ".comment") && parse_comment(out, im, &s) < 0)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		if (nm)
			dwarf_section(&dw, im, nm, &s);
	}
	char producer[ELF_COMMENT_MAX + 1];
	if (dwarf_producer(&dw, producer, sizeof(producer)) && !(out->producer = xstrdup(producer)))
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	out->has_symtab = symtab >= 0;
	out->has_dynsym = dynsym >= 0;
	if ((flags & ELF_READ_IMPORTS) && dynsym >= 0) {
		struct shdr dt = shdr_at(im, shoff, shentsize, (uint64_t)dynsym);
		struct shdr ds = dt.link < shnum ? shdr_at(im, shoff, shentsize, dt.link) : (struct shdr){0};
		if (read_imports(out, im, &dt, &ds) < 0)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	}
	/* LLVM reads .symtab, or .dynsym when .symtab holds no symbol; starts
	 * only where that choice is plain (a .symtab of the null symbol alone
	 * is not read at all). */
	int64_t stab = symtab >= 0 ? symtab : dynsym;
	struct shdr st = stab >= 0 ? shdr_at(im, shoff, shentsize, (uint64_t)stab) : (struct shdr){0};
	bool starts = (flags & ELF_READ_STARTS) && stab >= 0 && st.size / (im->is64 ? 24 : 16) >= 2;
	bool funcs = (flags & ELF_READ_SYMBOLS) && stab >= 0;
	struct keyed *sorted = NULL; /* one sort of the table for both */
	size_t nr = 0;
	struct shdr str = st.link < shnum ? shdr_at(im, shoff, shentsize, st.link) : (struct shdr){0};
	int rc = starts || funcs ? sort_symbols(im, &st, &sorted, &nr) : 0;
	if (rc == 0 && starts)
		rc = read_starts(out, im, &st, shoff, shentsize, shnum, sorted, nr);
	if (rc == 0 && funcs)
		rc = read_symbols(out, im, &st, &str, sorted, nr);
	xfree(sorted);
	return rc < 0 ? err_set(e, -ENOMEM, ERR_OOM, "out of memory") : 0;
}

int elf_info__parse(struct elf_info *out, const void *image, size_t len, unsigned flags,
		    struct err *e)
{
	memset(out, 0, sizeof(*out));
	struct image im = {.p = image, .len = len};
	if (len < 52 || memcmp(image, "\177ELF", 4) != 0)
		return err_set(e, -EINVAL, ERR_ELF_MAGIC, "offset 0: expected the ELF magic \\177ELF");
	if (im.p[4] != 1 && im.p[4] != 2)
		return err_set(e, -EINVAL, ERR_ELF_CLASS, "offset 4: unknown ELF class %u", im.p[4]);
	if (im.p[5] != 1)
		return err_set(e, -EINVAL, ERR_ELF_ENDIAN,
			       "offset 5: big-endian ELF objects are not supported");
	im.is64 = im.p[4] == 2;
	if (im.is64 && len < 64)
		return err_set(e, -EINVAL, ERR_ELF_TRUNCATED, "ELF64 header truncated at %zu bytes", len);
	out->is64 = im.is64;
	out->type = (int)rd(&im, 16, 2);
	out->machine = (int)rd(&im, 18, 2);
	int rc = parse_phdrs(out, &im, e);
	if (rc)
		return rc;
	return parse_shdrs(out, &im, flags, e);
}

int elf_info__read(struct elf_info *out, const char *path, unsigned flags, struct err *e)
{
	memset(out, 0, sizeof(*out));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, ERR_ELF_OPEN, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return err_set(e, -EINVAL, ERR_ELF_OPEN, "%s: not a regular non-empty file", path);
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	int saved = errno;
	close(fd);
	if (map == MAP_FAILED)
		return err_set(e, -saved, ERR_ELF_OPEN, "%s: mmap: %s", path, strerror(saved));
	int rc = elf_info__parse(out, map, (size_t)st.st_size, flags, e);
	munmap(map, (size_t)st.st_size);
	if (rc && e)
		err_prefix(e, "%s", path);
	return rc;
}

void elf_info__release(struct elf_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->nr_funcs; i++)
		xfree(info->funcs[i].name);
	xfree(info->funcs);
	for (size_t i = 0; i < info->nr_imports; i++)
		xfree(info->imports[i]);
	xfree(info->imports);
	xfree(info->loads);
	xfree(info->build_id);
	xfree(info->comment);
	xfree(info->producer);
	xfree(info->starts);
	xfree(info->debuglink);
	memset(info, 0, sizeof(*info));
}

int elf_info__offset_to_vaddr(const struct elf_info *info, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct elf_segment *s = &info->loads[i];
		if (offset >= s->offset && offset - s->offset < s->filesz) {
			*vaddr = offset - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t elf_info__symbolizer_address(const struct elf_info *info, uint64_t offset)
{
	uint64_t v;
	return elf_info__offset_to_vaddr(info, offset, &v) == 0 ? v : offset;
}

const struct elf_func *elf_info__func_at(const struct elf_info *info, uint64_t vaddr)
{
	size_t lo = 0, hi = info->nr_funcs;
	while (lo < hi) { /* first start > vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (info->funcs[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A few steps back: a wide symbol may enclose a smaller one starting later. */
	for (size_t k = 0; k < 8 && lo > 0; k++, lo--) {
		const struct elf_func *f = &info->funcs[lo - 1];
		if (vaddr - f->start < f->size)
			return f;
	}
	return NULL;
}
