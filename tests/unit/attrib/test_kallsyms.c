// SPDX-License-Identifier: BSD-3-Clause
/* kallsyms parser and the naming of kernel Hotspots (attrib/kernel.c). */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "harness.h"
#include "attrib/attrib.h"
#include "attrib/internal.h"
#include "attrib/kallsyms.h"
#include "common/err.h"
#include "exec/exec.h"
#include "model/model.h"

#define TMPDIR_TAG "kallsyms"
#include "tmpdir.h"

/* Unsorted, with modules, data symbols and aliases at _text. */
static const char KS[] =
	"ffffffff81002000 T do_sched_yield\n"
	"ffffffff81000000 t srso_alias_untrain_ret\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81003000 D some_data\n"
	"ffffffff81001000 t __x64_sys_getppid\n"
	"ffffffff81004000 T _etext\n"
	"ffffffffc0001000 t xfs_init\t[xfs]\n"
	"ffffffff81003800 W weak_fn\n";

static void t_parse(void)
{
	struct kallsyms ks = {0};
	struct err e = {0};
	CHECK_INT(kallsyms__parse(KS, sizeof(KS) - 1, &ks, &e), 0);
	CHECK(!ks.zeros);
	CHECK(ks.has_text && ks.text == 0xffffffff81000000ull);
	CHECK(ks.has_etext && ks.etext == 0xffffffff81004000ull);
	CHECK_INT(ks.n, 5); /* _text aliases fold into one; data and module dropped */
	for (size_t i = 1; i < ks.n; i++)
		CHECK(ks.v[i - 1].addr < ks.v[i].addr);
	uint64_t end = 0;
	const struct ksym *s = kallsyms__find(&ks, 0x2010, &end);
	CHECK(s && !strcmp(s->name, "do_sched_yield"));
	CHECK(end == 0x3800); /* extent: up to the next text symbol */
	s = kallsyms__find(&ks, 0x1000, &end);
	CHECK(s && !strcmp(s->name, "__x64_sys_getppid"));
	s = kallsyms__find(&ks, 0x10, &end);
	CHECK(s && !strcmp(s->name, "_stext")); /* the last listed alias, as perf shows */
	CHECK(kallsyms__find(&ks, 0x4000, &end) == NULL); /* at _etext */
	CHECK(kallsyms__find(&ks, 0xc0001000 - 0x81000000 + 0x100000000ull, &end) == NULL);
	kallsyms__release(&ks);
}

/* The kernel's own order (addresses never descending, aliases listed one
 * after the other) is taken as it is, not sorted: the same table as the
 * same lines shuffled, the last listed alias of each address kept. */
static void t_ordered_aliases(void)
{
	static const char ordered[] = "ffffffff81000000 T _text\n"
				      "ffffffff81000000 T _stext\n"
				      "ffffffff81001000 T __ia32_sys_getppid\n"
				      "ffffffff81001000 t __x64_sys_getppid\n"
				      "ffffffff81002000 T do_sched_yield\n"
				      "ffffffff81002800 D some_data\n"
				      "ffffffff81003000 T a_first\n"
				      "ffffffff81003000 T b_second\n"
				      "ffffffff81003000 T c_third\n"
				      "ffffffff81004000 T _etext\n";
	static const char shuffled[] = "ffffffff81003000 T a_first\n"
				       "ffffffff81001000 T __ia32_sys_getppid\n"
				       "ffffffff81004000 T _etext\n"
				       "ffffffff81000000 T _text\n"
				       "ffffffff81003000 T b_second\n"
				       "ffffffff81002000 T do_sched_yield\n"
				       "ffffffff81002800 D some_data\n"
				       "ffffffff81001000 t __x64_sys_getppid\n"
				       "ffffffff81000000 T _stext\n"
				       "ffffffff81003000 T c_third\n";
	struct kallsyms a = {0}, b = {0};
	struct err e = {0};
	CHECK_INT(kallsyms__parse(ordered, sizeof(ordered) - 1, &a, &e), 0);
	CHECK_INT(kallsyms__parse(shuffled, sizeof(shuffled) - 1, &b, &e), 0);
	static const char *const names[] = {"_stext", "__x64_sys_getppid", "do_sched_yield",
					    "c_third", "_etext"};
	CHECK_INT(a.n, 5);
	CHECK_INT(b.n, 5);
	for (size_t i = 0; i < a.n; i++) {
		CHECK_STR(a.v[i].name, names[i]);
		CHECK_STR(b.v[i].name, names[i]);
		CHECK(a.v[i].addr == b.v[i].addr);
	}
	uint64_t end = 0;
	const struct ksym *s = kallsyms__find(&a, 0x3010, &end);
	CHECK(s && !strcmp(s->name, "c_third") && end == 0x4000); /* up to _etext */
	kallsyms__release(&a);
	kallsyms__release(&b);
}

/* The running kernel's table, read here, or NULL (kallsyms hidden). */
static char *read_proc_kallsyms(size_t *len)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0, got;
	char *b = malloc(cap);
	while (b && (got = fread(b + n, 1, cap - n, f)) > 0)
		if ((n += got) == cap && !(b = realloc(b, cap *= 2)))
			break;
	fclose(f);
	*len = n;
	return b;
}

static void same_table(const struct kallsyms *a, const struct kallsyms *b)
{
	CHECK_INT(a->n, b->n);
	CHECK(a->text == b->text && a->etext == b->etext);
	CHECK(a->has_text == b->has_text && a->has_etext == b->has_etext && a->zeros == b->zeros);
	for (size_t i = 0; i < a->n; i++) {
		CHECK(a->v[i].addr == b->v[i].addr);
		CHECK_STR(a->v[i].name, b->v[i].name);
	}
}

/* kallsyms__decode_for() over offs answers each offset as the whole
 * decoded table does (the same symbol name and extent end, or none), with
 * the same header, and fails exactly where kallsyms__decode() fails; it
 * keeps at most two symbols per offset (the point of it). */
static void agree_for(const char *enc, size_t len, const uint64_t *offs, size_t n)
{
	struct kallsyms whole = {0}, part = {0};
	struct err e = {0};
	size_t total = 7;
	int a = kallsyms__decode(enc, len, &whole, &e);
	int b = kallsyms__decode_for(enc, len, offs, n, &part, &total, &e);
	CHECK((a == 0) == (b == 0));
	if (b != 0) {
		CHECK(part.n == 0 && part.v == NULL && part.names == NULL && total == 0);
		return;
	}
	CHECK(total == whole.n && part.n <= 2 * n + 1);
	CHECK(part.text == whole.text && part.etext == whole.etext);
	CHECK(part.has_text == whole.has_text && part.has_etext == whole.has_etext);
	CHECK(part.zeros == whole.zeros);
	for (size_t i = 1; i < part.n; i++)
		CHECK(part.v[i - 1].addr < part.v[i].addr);
	for (size_t i = 0; i < n; i++) {
		uint64_t e1 = 1, e2 = 2;
		const struct ksym *x = kallsyms__find(&whole, offs[i], &e1);
		const struct ksym *y = kallsyms__find(&part, offs[i], &e2);
		CHECK((x == NULL) == (y == NULL));
		if (x) {
			CHECK(x->addr == y->addr && e1 == e2);
			CHECK_STR(x->name, y->name);
		}
	}
	kallsyms__release(&whole);
	kallsyms__release(&part);
}

/* Offsets around every symbol of a (each start, one before, one after),
 * before the first, past the last and `_etext`, and past UINT64_MAX. */
static uint64_t *probe_offsets(const struct kallsyms *a, size_t stride, size_t *n)
{
	uint64_t *v = calloc(3 * (a->n / stride + 1) + 8, sizeof(*v));
	size_t k = 0;
	CHECK(v != NULL);
	for (size_t i = 0; i < a->n; i += stride) {
		uint64_t o = a->v[i].addr - a->text;
		v[k++] = o, v[k++] = o - 1, v[k++] = o + 1; /* o - 1 wraps for _text */
	}
	v[k++] = 0, v[k++] = 0, v[k++] = a->etext - a->text, v[k++] = a->etext - a->text + 9;
	v[k++] = ~(uint64_t)0, v[k++] = ~(uint64_t)0 - a->text + 1, v[k++] = 1u << 30;
	for (size_t i = 0; i + 1 < k; i += 2) { /* not in order */
		uint64_t t = v[i];
		v[i] = v[k - 1 - i], v[k - 1 - i] = t;
	}
	*n = k;
	return v;
}

static void t_decode_for(void)
{
	static const char pfx[] = "ffffffff81000000 T _text\n"
				  "ffffffff81000000 t __pfx_first\n"
				  "ffffffff81000010 T first\n"
				  "ffffffff81000040 t __pfx_second\n"
				  "ffffffff81000050 T second\n"
				  "ffffffff81000070 T __pfx_\n"
				  "ffffffff81000080 T third\n"
				  "ffffffff81000090 T _etext\n";
	/* `_text` at 0: zeros only when the last address is 0 too */
	static const char low[] = "0000000000000000 T _text\n0000000000001000 T low_fn\n";
	static const char zero[] = "0000000000000000 T _text\n0000000000000000 T zero_fn\n";
	const char *tables[] = {KS, pfx, low, zero};
	size_t lens[] = {sizeof(KS) - 1, sizeof(pfx) - 1, sizeof(low) - 1, sizeof(zero) - 1};
	for (int t = 0; t < 4; t++) {
		struct kallsyms a = {0};
		struct err e = {0};
		CHECK_INT(kallsyms__parse(tables[t], lens[t], &a, &e), 0);
		CHECK(a.zeros == (t == 3));
		size_t len = 0, n = 0;
		char *enc = kallsyms__encode(&a, &len);
		uint64_t *offs = probe_offsets(&a, 1, &n);
		agree_for(enc, len, offs, n);
		for (uint64_t o = 0; o < 0x4100; o += 7) /* one offset at a time */
			agree_for(enc, len, &o, 1);
		agree_for(enc, len, NULL, 0);
		for (size_t cut = 0; cut < len; cut++) { /* every truncation */
			char *part = malloc(cut ? cut : 1);
			memcpy(part, enc, cut);
			agree_for(part, cut, offs, n);
			free(part);
		}
		for (size_t i = 0; i < len; i++) { /* every flipped byte */
			enc[i] ^= 0x5a;
			agree_for(enc, len, offs, n);
			enc[i] ^= 0x5a;
		}
		free(offs);
		free(enc);
		kallsyms__release(&a);
	}
	size_t len = 0;
	char *text = read_proc_kallsyms(&len);
	struct kallsyms k = {0};
	struct err e = {0};
	if (!text || kallsyms__parse(text, len, &k, &e) != 0 || k.zeros || k.n < 100)
		SKIP("/proc/kallsyms shows no addresses here (not root, or kptr_restrict): "
		     "compared on the fixtures only");
	size_t elen = 0, n = 0;
	char *enc = kallsyms__encode(&k, &elen);
	uint64_t *offs = probe_offsets(&k, 97, &n);
	agree_for(enc, elen, offs, n);
	agree_for(enc, elen, offs, 5); /* a few kernel samples */
	free(offs);
	free(enc);
	kallsyms__release(&k);
	free(text);
}

/* Encodes a, decodes it back: the same table; every truncation and every
 * flipped header or record byte is refused or decodes to a table, never
 * read beyond the buffer (ASan). Returns the encoded size. */
static size_t round_trip(const struct kallsyms *a)
{
	size_t len = 0;
	char *enc = kallsyms__encode(a, &len);
	CHECK(enc != NULL);
	struct kallsyms b = {0};
	struct err e = {0};
	CHECK_INT(kallsyms__decode(enc, len, &b, &e), 0);
	same_table(a, &b);
	kallsyms__release(&b);
	bool big = len > 4096; /* the running kernel's: a sample of the cuts and flips */
	size_t step = big ? len / 64 : 1, flips = big ? 48 : 256;
	for (size_t cut = 0; cut < len; cut += step) {
		char *part = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees overreads */
		memcpy(part, enc, cut);
		CHECK(kallsyms__decode(part, cut, &b, &e) < 0); /* a count short of n */
		CHECK(b.n == 0 && b.v == NULL && b.names == NULL);
		free(part);
	}
	for (size_t i = 0; i < len && i < flips; i++) {
		enc[i] ^= 0x5a;
		if (kallsyms__decode(enc, len, &b, &e) == 0)
			kallsyms__release(&b);
		CHECK(b.n == 0 && b.v == NULL);
		enc[i] ^= 0x5a;
	}
	free(enc);
	return len;
}

/* nunatak's cache form: the fixture's table and the running kernel's
 * (its "__pfx_" padding symbols written as a flag) come back whole. */
static void t_cache_form(void)
{
	static const char pfx[] = "ffffffff81000000 T _text\n"
				  "ffffffff81000000 t __pfx_first\n"
				  "ffffffff81000010 T first\n"
				  "ffffffff81000040 t __pfx_second\n" /* a gap, then its own */
				  "ffffffff81000050 T second\n"
				  "ffffffff81000060 t __pfx_orphan\n" /* no orphan after it */
				  "ffffffff81000070 T __pfx_\n"
				  "ffffffff81000080 T third\n"
				  "ffffffff81000090 T _etext\n";
	const char *tables[] = {KS, pfx};
	size_t lens[] = {sizeof(KS) - 1, sizeof(pfx) - 1};
	for (int t = 0; t < 2; t++) {
		struct kallsyms a = {0};
		struct err e = {0};
		CHECK_INT(kallsyms__parse(tables[t], lens[t], &a, &e), 0);
		round_trip(&a);
		kallsyms__release(&a);
	}
	struct kallsyms z = {0};
	struct err e = {0};
	CHECK(kallsyms__decode("nunatak kallsyms 1\n", 19, &z, &e) < 0); /* no header */
	CHECK(kallsyms__decode("ffffffff81000000 T _text\n", 25, &z, &e) < 0); /* text form */
	size_t len = 0;
	char *text = read_proc_kallsyms(&len);
	struct kallsyms k = {0};
	if (!text || kallsyms__parse(text, len, &k, &e) != 0 || k.zeros || k.n < 100)
		SKIP("/proc/kallsyms shows no addresses here (not root, or kptr_restrict)");
	size_t enc = round_trip(&k);
	CHECK(enc < len / 2); /* what the cache saves: at least half of kallsyms' text */
	kallsyms__release(&k);
	free(text);
}

static void t_zeros(void)
{
	const char z[] = "0000000000000000 T _text\n0000000000000000 T do_sched_yield\n"
			 "0000000000000000 t xfs_init [xfs]\n";
	struct kallsyms ks = {0};
	struct err e = {0};
	CHECK_INT(kallsyms__parse(z, sizeof(z) - 1, &ks, &e), 0);
	CHECK(ks.zeros);
	uint64_t end;
	CHECK(kallsyms__find(&ks, 0, &end) == NULL);
	kallsyms__release(&ks);
}

static void t_malformed(void)
{
	const char bad[] = "ffffffff81000000 T _text\nzzz T x\n";
	struct kallsyms ks = {0};
	struct err e = {0};
	CHECK(kallsyms__parse(bad, sizeof(bad) - 1, &ks, &e) < 0);
	CHECK(strstr(e.msg, "line 2") != NULL);
	CHECK_INT(ks.n, 0);
	struct kallsyms empty = {0};
	CHECK_INT(kallsyms__parse("", 0, &empty, &e), 0);
	CHECK(empty.zeros && !empty.has_text);
	kallsyms__release(&empty);
}

static char fixture[] = "/tmp/nunatak-kallsyms-XXXXXX";

static void write_fixture(const char *text)
{
	int fd = mkstemp(fixture);
	CHECK(fd >= 0);
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* Three kernel addresses (two in one function), one user Hotspot. */
static void make_pivot(struct pivot *p)
{
	pivot__init(p);
	static const uint64_t offs[] = {0x2010, 0x2020, 0x1004};
	for (int i = 0; i < 3; i++) {
		struct hotspot h = {.module = (char *)"[kernel.kallsyms]", .offset = offs[i],
				    .has_offset = true, .level = RESOLUTION_UNRESOLVED};
		int64_t id = pivot__add_hotspot(p, &h);
		struct measurement m = {.hotspot = id, .locus = 0, .counter = (char *)"task-clock",
					.value = 1000.0 * (i + 1), .unit = (char *)"ns",
					.quality = QUALITY_MEASURED, .sample_count = i + 1,
					.coverage = -1};
		pivot__add_measurement(p, &m);
	}
	struct hotspot u = {.module = (char *)"/bin/x", .offset = 0x10, .has_offset = true,
			    .level = RESOLUTION_UNRESOLVED};
	struct measurement m = {.hotspot = pivot__add_hotspot(p, &u), .counter = (char *)"task-clock",
				.value = 5, .unit = (char *)"ns", .quality = QUALITY_MEASURED,
				.sample_count = 1, .coverage = -1};
	pivot__add_measurement(p, &m);
}

static double total(const struct pivot *p)
{
	double t = 0;
	for (size_t i = 0; i < p->nr_measurements; i++)
		t += p->measurements[i].value;
	return t;
}

static void t_name_kernel(void)
{
	struct utsname u;
	CHECK(uname(&u) == 0);
	write_fixture(KS);
	struct attrib_opts o = {.recorded_kernel = u.release, .kallsyms_path = fixture};
	struct pivot p;
	make_pivot(&p);
	struct degradations d = {0};
	struct err e = {0};
	CHECK_INT(attrib_kernel(&p, NULL, &o, &d, NULL, &e), 0);
	CHECK_INT(d.n, 0);
	CHECK_INT(p.nr_hotspots, 3); /* do_sched_yield (fused), __x64_sys_getppid, /bin/x */
	CHECK_STR(p.hotspots[0].name, "do_sched_yield");
	CHECK_INT(p.hotspots[0].level, RESOLUTION_FUNCTION);
	CHECK(p.hotspots[0].has_offset && p.hotspots[0].offset == 0x2000);
	CHECK_STR(p.hotspots[1].name, "__x64_sys_getppid");
	CHECK(p.hotspots[2].name == NULL && p.hotspots[2].level == RESOLUTION_UNRESOLVED);
	CHECK_NEAR(total(&p), 6005, 1e-9);
	CHECK_NEAR(p.measurements[0].value, 3000, 1e-9);
	pivot__release(&p);
	degradations__release(&d);
	unlink(fixture);
}

/* Names the two Hotspots of p at offs through o; checks they are want. */
static void name_two(const struct attrib_opts *o, const uint64_t offs[2], const char *want[2])
{
	struct pivot p;
	pivot__init(&p);
	for (int i = 0; i < 2; i++) {
		struct hotspot h = {.module = (char *)"[kernel.kallsyms]", .offset = offs[i],
				    .has_offset = true, .level = RESOLUTION_UNRESOLVED};
		struct measurement m = {.hotspot = pivot__add_hotspot(&p, &h),
					.counter = (char *)"task-clock", .value = 1000.0 * (i + 1),
					.unit = (char *)"ns", .quality = QUALITY_MEASURED,
					.sample_count = i + 1, .coverage = -1};
		pivot__add_measurement(&p, &m);
	}
	struct degradations d = {0};
	struct err e = {0};
	struct attrib_kstore *st = NULL;
	CHECK_INT(attrib_kernel(&p, NULL, o, &d, &st, &e), 0);
	attrib_kernel_store_join(st);
	CHECK_INT(d.n, 0);
	CHECK_INT(p.nr_hotspots, 2);
	for (int i = 0; i < 2; i++) {
		CHECK_STR(p.hotspots[i].name, want[i]);
		CHECK_INT(p.hotspots[i].level, RESOLUTION_FUNCTION);
	}
	pivot__release(&p);
	degradations__release(&d);
}

/* The table read ahead on a thread (a live Run starts it as perf starts):
 * the same names as read in place, a first read cached and sealed for the
 * next, which reads the cache and does not write it again. */
static void t_prefetch(void)
{
	size_t len = 0;
	char *text = read_proc_kallsyms(&len);
	struct kallsyms ks = {0};
	struct err e = {0};
	if (!text || kallsyms__parse(text, len, &ks, &e) != 0 || ks.zeros || !ks.has_text ||
	    ks.n < 100)
		SKIP("/proc/kallsyms shows no addresses here (not root, or kptr_restrict)");
	free(text);
	uint64_t offs[2];
	const char *want[2];
	for (int i = 0; i < 2; i++) { /* inside two symbols, a third and two thirds in */
		const struct ksym *k = &ks.v[ks.n * (size_t)(i + 1) / 3];
		uint64_t end = 0;
		offs[i] = k->addr - ks.text + ((k + 1)->addr > k->addr + 1 ? 1 : 0);
		const struct ksym *f = kallsyms__find(&ks, offs[i], &end);
		CHECK(f != NULL);
		want[i] = f->name;
	}
	struct utsname u;
	CHECK(uname(&u) == 0);
	char *cache = tmpdir();
	setenv("XDG_CACHE_HOME", cache, 1);
	struct attrib_opts o = {.recorded_kernel = u.release};
	o.kernel_prefetch = attrib_kernel_prefetch();
	CHECK(o.kernel_prefetch != NULL);
	CHECK(!attrib_kernel_prefetch_taken(o.kernel_prefetch));
	name_two(&o, offs, want); /* first: read from the kernel, then cached */
	CHECK(attrib_kernel_prefetch_taken(o.kernel_prefetch)); /* the names came from it */
	name_two(&o, offs, want); /* a second naming: taken, so read again */
	attrib_kernel_prefetch_free(o.kernel_prefetch);
	char *glob_dir = NULL;
	CHECK(asprintf(&glob_dir, "%s/nunatak/kallsyms", cache) > 0);
	DIR *dir = opendir(glob_dir);
	CHECK(dir != NULL);
	struct dirent *de;
	char table[4096] = "";
	while ((de = readdir(dir)))
		if (strlen(de->d_name) > 4 && !strcmp(de->d_name + strlen(de->d_name) - 4, ".bin"))
			snprintf(table, sizeof(table), "%s/%s", glob_dir, de->d_name);
	closedir(dir);
	struct stat before, after;
	CHECK(table[0] && stat(table, &before) == 0 && before.st_size > 0);
	o.kernel_prefetch = attrib_kernel_prefetch();
	CHECK(o.kernel_prefetch != NULL);
	name_two(&o, offs, want); /* then: the sealed cache */
	CHECK(attrib_kernel_prefetch_taken(o.kernel_prefetch));
	attrib_kernel_prefetch_free(o.kernel_prefetch);
	CHECK(stat(table, &after) == 0);
	CHECK(after.st_ino == before.st_ino && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec &&
	      after.st_mtim.tv_sec == before.st_mtim.tv_sec); /* not written again */
	o.kernel_prefetch = NULL;
	name_two(&o, offs, want); /* read in place */
	attrib_kernel_prefetch_free(NULL);
	unsetenv("XDG_CACHE_HOME");
	kallsyms__release(&ks);
	free(glob_dir);
	free(cache);
	done();
}

/* The tap of t_prefetch_tap: the core lines (no "\t[module]") named
 * _text, _etext or tap_last (the file's last core symbol, after _etext:
 * kept only when the read goes to the end); done() copies them here. */
static char tap_last[256], tap_got[1 << 16];
static size_t tap_len;
static int tap_calls;

static const char *core_name(const char *line, size_t len, size_t *n)
{
	const char *sp = memchr(line, ' ', len);
	const char *sp2 = sp ? memchr(sp + 1, ' ', len - (size_t)(sp + 1 - line)) : NULL;
	if (!sp2 || memchr(sp2, '\t', len - (size_t)(sp2 - line)))
		return NULL;
	*n = len - (size_t)(sp2 + 1 - line);
	return sp2 + 1;
}

static bool tap_keep(const char *line, size_t len)
{
	size_t n = 0;
	const char *name = core_name(line, len, &n);
	const char *want[] = {"_text", "_etext", tap_last};
	for (size_t i = 0; name && i < 3; i++)
		if (n == strlen(want[i]) && !memcmp(name, want[i], n))
			return true;
	return false;
}

static int tap_done(const char *lines, size_t len)
{
	tap_calls++;
	if (len >= sizeof(tap_got))
		return -E2BIG;
	memcpy(tap_got, lines, len);
	tap_got[len] = '\0';
	tap_len = len;
	return 0;
}

/* attrib_kernel_lock's ready: what was waited for is there at once. */
static int lock_asked;
static bool lock_ready(void *arg)
{
	(void)arg;
	lock_asked++;
	return true;
}

/* What the tap should get from the whole text, line by line; tap_last set. */
static char *tap_expected(const char *text, size_t len)
{
	for (const char *l = text; l < text + len;) { /* the last core line's name */
		const char *nl = memchr(l, '\n', (size_t)(text + len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(text + len - l), n = 0;
		const char *name = core_name(l, ll, &n);
		if (name && n < sizeof(tap_last))
			snprintf(tap_last, sizeof(tap_last), "%.*s", (int)n, name);
		l = nl ? nl + 1 : text + len;
	}
	char *out = calloc(1, len + 1);
	size_t o = 0;
	for (const char *l = text; out && l < text + len;) {
		const char *nl = memchr(l, '\n', (size_t)(text + len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(text + len - l);
		if (tap_keep(l, ll)) {
			memcpy(out + o, l, ll);
			o += ll;
			out[o++] = '\n';
		}
		l = nl ? nl + 1 : text + len;
	}
	return out;
}

/* The kernel table's file in cache (malloc'd path), or NULL. */
static char *bin_in(const char *cache)
{
	char *dir = NULL, *path = NULL;
	CHECK(asprintf(&dir, "%s/nunatak/kallsyms", cache) > 0);
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));)
		if (strlen(de->d_name) > 4 && !strcmp(de->d_name + strlen(de->d_name) - 4, ".bin"))
			CHECK(asprintf(&path, "%s/%s", dir, de->d_name) > 0);
	if (d)
		closedir(d);
	free(dir);
	return path;
}

static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	char *b = f ? malloc(64 << 20) : NULL;
	*len = b ? fread(b, 1, 64 << 20, f) : 0;
	if (f)
		fclose(f);
	return b;
}

static void same_bin(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *x = slurp_file(a, &la), *y = slurp_file(b, &lb);
	CHECK(x && y && la > 0 && la == lb && !memcmp(x, y, la));
	free(x);
	free(y);
}

/* One read for both of a boot's tables (issue 27): a read-ahead given a
 * tap reads on to the end of /proc/kallsyms, gives the tap its lines and
 * stores the same kernel table as without one; a read-ahead that finds
 * the table cached reads nothing; attrib_kernel_read_boot() gives the
 * lines and stores the table only where it is missing. */
static void t_prefetch_tap(void)
{
	size_t len = 0;
	char *text = read_proc_kallsyms(&len);
	struct kallsyms ks = {0};
	struct err e = {0};
	if (!text || kallsyms__parse(text, len, &ks, &e) != 0 || ks.zeros || !ks.has_text)
		SKIP("/proc/kallsyms shows no addresses here (not root, or kptr_restrict)");
	kallsyms__release(&ks);
	char *want = tap_expected(text, len);
	free(text);
	CHECK(want && strstr(want, " _text\n") && strstr(want, " _etext\n") && tap_last[0]);
	const struct attrib_ktap tap = {tap_keep, tap_done};
	char *a = tmpdir(), *b = tmpdir(), *c = tmpdir();
	setenv("XDG_CACHE_HOME", a, 1); /* empty: the table and the lines, one read */
	attrib_kernel_prefetch_free(attrib_kernel_prefetch_tap(&tap));
	CHECK_INT(tap_calls, 1);
	CHECK_STR(tap_got, want);
	char *abin = bin_in(a);
	struct stat before, after;
	CHECK(abin && stat(abin, &before) == 0 && (before.st_mode & 0777) == 0600);
	setenv("XDG_CACHE_HOME", b, 1); /* the same table without a tap */
	attrib_kernel_prefetch_free(attrib_kernel_prefetch());
	char *bbin = bin_in(b);
	same_bin(abin, bbin);
	setenv("XDG_CACHE_HOME", a, 1); /* cached: nothing read, nothing given */
	attrib_kernel_prefetch_free(attrib_kernel_prefetch_tap(&tap));
	CHECK_INT(tap_calls, 1);
	tap_got[0] = '\0';
	CHECK_INT(attrib_kernel_read_boot(&tap), 0); /* the lines; the table kept as it is */
	CHECK_INT(tap_calls, 2);
	CHECK_STR(tap_got, want);
	CHECK(stat(abin, &after) == 0 && after.st_ino == before.st_ino &&
	      after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
	      after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
	setenv("XDG_CACHE_HOME", c, 1); /* empty: the lines and the table */
	tap_got[0] = '\0';
	CHECK_INT(attrib_kernel_read_boot(&tap), 0);
	CHECK_INT(tap_calls, 3);
	CHECK_STR(tap_got, want);
	char *cbin = bin_in(c);
	same_bin(abin, cbin);
	int fd = attrib_kernel_lock(NULL, NULL); /* held, let go, taken again */
	CHECK(fd >= 0);
	attrib_kernel_unlock(fd);
	CHECK((fd = attrib_kernel_lock(lock_ready, NULL)) >= 0); /* free: not asked */
	CHECK_INT(lock_asked, 0);
	int other = attrib_kernel_lock(lock_ready, NULL); /* held: ready ends the wait */
	CHECK(other < 0 && lock_asked == 1);
	attrib_kernel_unlock(fd);
	unsetenv("XDG_CACHE_HOME");
	free(abin);
	free(bbin);
	free(cbin);
	free(want);
	free(a);
	free(b);
	free(c);
	done();
}

static void expect_folded(const struct attrib_opts *o, const char *why, size_t nr_degr)
{
	struct pivot p;
	make_pivot(&p);
	struct degradations d = {0};
	struct err e = {0};
	CHECK_INT(attrib_kernel(&p, NULL, o, &d, NULL, &e), 0);
	CHECK_INT(p.nr_hotspots, 2); /* one unresolved kernel Hotspot, as before offsets */
	CHECK_STR(p.hotspots[0].module, "[kernel.kallsyms]");
	CHECK(p.hotspots[0].name == NULL && !p.hotspots[0].has_offset);
	CHECK_NEAR(p.measurements[0].value, 6000, 1e-9);
	CHECK_INT(p.measurements[0].sample_count, 6);
	CHECK_NEAR(total(&p), 6005, 1e-9);
	CHECK_INT(d.n, nr_degr);
	if (nr_degr) {
		CHECK_STR(d.v[0].name, "kernel-symbols-unavailable");
		CHECK(strstr(d.v[0].message, why) != NULL);
	}
	pivot__release(&p);
	degradations__release(&d);
}

static void t_unavailable(void)
{
	struct utsname u;
	CHECK(uname(&u) == 0);
	write_fixture("0000000000000000 T _text\n0000000000000000 T do_sched_yield\n");
	struct attrib_opts o = {.recorded_kernel = u.release, .kallsyms_path = fixture};
	expect_folded(&o, "shows no addresses", 1);
	CHECK(strstr("run as root or set kernel.kptr_restrict=0", "kptr_restrict") != NULL);
	unlink(fixture);
	strcpy(fixture, "/tmp/nunatak-kallsyms-XXXXXX");
	write_fixture(KS);
	o.recorded_kernel = "0.0.0-other";
	expect_folded(&o, "recorded on kernel 0.0.0-other", 1);
	o.recorded_kernel = NULL;
	expect_folded(&o, "unknown", 1);
	/* never under replay, and silently: a replay stays as it was */
	o.recorded_kernel = u.release;
	o.replay = true;
	expect_folded(&o, "", 0);
	unlink(fixture);
}

/* Names the pivot through executor x (live when !replay), then checks the
 * names every replay must reproduce. */
static void name_through(struct executor *x, const struct attrib_opts *o)
{
	struct pivot p;
	make_pivot(&p);
	struct stack st = {.locus = 0, .counter = (char *)"task-clock", .value = 1, .unit = (char *)"ns",
			   .sample_count = 1};
	int64_t sid = pivot__add_stack(&p, &st);
	struct stack_frame f0 = {.stack = sid, .depth = 0, .module = (char *)"[kernel.kallsyms]",
				 .offset = 0x1008};
	struct stack_frame f1 = {.stack = sid, .depth = 1, .module = (char *)"[kernel.kallsyms]",
				 .offset = 0x3900};
	pivot__add_stack_frame(&p, &f0);
	pivot__add_stack_frame(&p, &f1);
	struct degradations d = {0};
	struct err e = {0};
	CHECK_INT(attrib_kernel(&p, x, o, &d, NULL, &e), 0);
	CHECK_INT(d.n, 0);
	CHECK_INT(p.nr_hotspots, 3);
	CHECK_STR(p.hotspots[0].name, "do_sched_yield");
	CHECK(p.hotspots[0].offset == 0x2000 && p.hotspots[0].level == RESOLUTION_FUNCTION);
	CHECK_STR(p.hotspots[1].name, "__x64_sys_getppid");
	CHECK_NEAR(p.measurements[0].value, 3000, 1e-9);
	CHECK_STR(p.stack_frames[0].function, "__x64_sys_getppid");
	CHECK_STR(p.stack_frames[1].function, "weak_fn");
	pivot__release(&p);
	degradations__release(&d);
}

/* Issue 16: a recording keeps the kernel symbols its samples fall in, and
 * its replay names them the same on any kernel, without kallsyms. */
static void t_record_replay(void)
{
	struct utsname u;
	CHECK(uname(&u) == 0);
	strcpy(fixture, "/tmp/nunatak-kallsyms-XXXXXX");
	write_fixture(KS);
	char *dir = tmpdir(), entry[512];
	CHECK(dir != NULL);
	snprintf(entry, sizeof(entry), "%s/entry", dir);
	struct err e = {0};
	struct executor *rec = executor__new_recording_take(executor__new_real(), entry, NULL, &e);
	CHECK(rec != NULL);
	struct attrib_opts o = {.recorded_kernel = u.release, .kallsyms_path = fixture};
	name_through(rec, &o);
	executor__free(rec);
	unlink(fixture); /* the replay cannot read it */
	struct executor *rep = executor__new_replay(entry, &e);
	CHECK(rep != NULL);
	const json_t *ks = json_object_get(executor__recorded_meta(rep), "kernel_symbols");
	CHECK_INT(json_array_size(json_object_get(ks, "symbols")), 3);
	CHECK_STR(json_string_value(json_object_get(ks, "kernel")), u.release);
	struct attrib_opts r = {.replay = true, .recorded_kernel = "0.0.0-elsewhere"};
	name_through(rep, &r);
	/* A malformed excerpt names nothing and says so. */
	json_t *bad = json_pack("{s:[{s:i, s:i, s:s}]}", "symbols", "offset", 16, "end", 8, "name",
				"x");
	json_object_set_new((json_t *)executor__recorded_meta(rep), "kernel_symbols", bad);
	struct pivot p;
	make_pivot(&p);
	struct degradations d = {0};
	CHECK_INT(attrib_kernel(&p, rep, &r, &d, NULL, &e), 0);
	CHECK_INT(p.nr_hotspots, 2);
	CHECK(d.n == 1 && strstr(d.v[0].message, "kernel_symbols is malformed"));
	pivot__release(&p);
	degradations__release(&d);
	executor__free(rep);
	free(dir);
	done();
}

static const struct test_case cases[] = {
	{"record_replay", "a recording keeps the kernel symbols; its replay names the same",
	 t_record_replay},
	{"parse", "unsorted, modules, aliases, data; extents; _etext", t_parse},
	{"ordered_aliases", "the kernel's order taken as is: last alias kept, as sorted",
	 t_ordered_aliases},
	{"zeros", "kptr_restrict zeros: nothing named", t_zeros},
	{"cache_form", "nunatak's cache form: the same table back, bad bytes refused",
	 t_cache_form},
	{"prefetch", "the running kernel's table read ahead: same names, cached once",
	 t_prefetch},
	{"prefetch_tap", "one read for the kernel's table and perf's lines, each made once",
	 t_prefetch_tap},
	{"decode_for", "the cache read for a few offsets answers as the whole table",
	 t_decode_for},
	{"malformed", "a bad line names its number; empty input", t_malformed},
	{"name_kernel", "kernel Hotspots named and fused per function", t_name_kernel},
	{"unavailable", "zeros, other kernel, unknown release, replay: folded", t_unavailable},
};
TEST_MAIN(cases)
