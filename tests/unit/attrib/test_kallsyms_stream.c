// SPDX-License-Identifier: BSD-3-Clause
/*
 * kallsyms text to the cache form as it is read (attrib/kallsyms_stream.c)
 * and the table a first Run stores with it (attrib/kernel.c): the same
 * bytes as kallsyms__encode(kallsyms__parse()), however the text is cut;
 * a read that stops past `_etext` names every offset as the whole text
 * does; the cache a read-ahead leaves names a later Run's offsets, up to
 * the last function before `_etext`, as the whole /proc/kallsyms does.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "harness.h"
#include "attrib/attrib.h"
#include "attrib/internal.h"
#include "attrib/kallsyms.h"
#include "common/err.h"
#include "model/model.h"

#define TMPDIR_TAG "kallsyms-stream"
#include "tmpdir.h"

/* The kernel's layout: per-cpu data at 0, `_text` and its aliases, padding
 * symbols, a weak one, data among the text, the last function before
 * `_etext`, then init text, read-only data, a module, BPF. */
static const char KERNEL_ORDER[] =
	"0000000000000000 D fixed_percpu_data\n"
	"0000000000001000 D cpu_number\n"
	"ffffffff81000000 T srso_alias_untrain_ret\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000040 t __pfx_first\n"
	"ffffffff81000050 T first\n"
	"ffffffff81000060 T __ia32_sys_getppid\n"
	"ffffffff81000060 T __x64_sys_getppid\n"
	"ffffffff81000070 t __pfx_orphan\n"
	"ffffffff81000080 W weak_fn\n"
	"ffffffff81000090 D some_data\n"
	"ffffffff810000a0 t __pfx_\n"
	"ffffffff810000b0 T __pfx_last_fn\n"
	"ffffffff810000c0 T last_fn\n"
	"ffffffff81000100 T _etext\n"
	"ffffffff81000100 T alias_of_etext\n"
	"ffffffff81002000 T _sinittext\n"
	"ffffffff81002040 t init_fn\n"
	"ffffffff81003000 R __start_ro\n"
	"ffffffffc0001000 t xfs_init\t[xfs]\n"
	"ffffffffc0002000 t bpf_prog_6deef7357e7b4530\t[bpf]\n";

/* `_etext` not a text type: the next text symbol ends the last function. */
static const char ETEXT_DATA[] = "ffffffff81000000 T _text\n"
				 "ffffffff81000010 T f1\n"
				 "ffffffff81000020 T f2\n"
				 "ffffffff81000030 D _etext\n"
				 "ffffffff81000038 D more_data\n"
				 "ffffffff81000040 T _sinittext\n"
				 "ffffffff81000050 T init_fn\n";

static const char NO_ETEXT[] = "ffffffff81000000 T _text\n"
			       "ffffffff81000010 T f1\n"
			       "ffffffff81000020 T f2\n";

static const char ZEROS[] = "0000000000000000 T _text\n"
			    "0000000000000000 T f1\n"
			    "0000000000000000 T _etext\n"
			    "0000000000000000 T after\n";

/* Feeds text in chunks of `chunk` bytes (0: whole): the status of the last
 * feed then finish, the bytes in *out. */
static int stream(const char *text, size_t len, size_t chunk, bool to_end, char **out,
		  size_t *olen, size_t *consumed, struct err *e)
{
	struct kallsyms_enc k;
	kallsyms_enc__init(&k, to_end);
	int rc = 0;
	size_t step = chunk ? chunk : (len ? len : 1);
	for (size_t at = 0; rc == 0 && at < len; at += step)
		rc = kallsyms_enc__feed(&k, text + at, len - at < step ? len - at : step, e);
	*out = NULL;
	if (rc >= 0 && rc != KALLSYMS_UNORDERED)
		rc = kallsyms_enc__finish(&k, out, olen, e);
	*consumed = k.consumed;
	kallsyms_enc__release(&k);
	return rc;
}

static char *encode_text(const char *text, size_t len, size_t *elen)
{
	struct kallsyms ks = {0};
	struct err e = {0};
	CHECK_INT(kallsyms__parse(text, len, &ks, &e), 0);
	char *enc = kallsyms__encode(&ks, elen);
	CHECK(enc != NULL);
	kallsyms__release(&ks);
	return enc;
}

/* The same answer (symbol name, start, extent end, or none) for off. */
static void same_answer(const struct kallsyms *a, const struct kallsyms *b, uint64_t off)
{
	uint64_t e1 = 1, e2 = 2;
	const struct ksym *x = kallsyms__find(a, off, &e1), *y = kallsyms__find(b, off, &e2);
	if ((x == NULL) != (y == NULL))
		fprintf(stderr, "offset %#" PRIx64 ": %s against %s\n", off, x ? x->name : "none",
			y ? y->name : "none");
	CHECK((x == NULL) == (y == NULL));
	if (x) {
		CHECK(x->addr == y->addr && e1 == e2);
		CHECK_STR(x->name, y->name);
	}
}

/* Every offset in [0, `_etext` + 0x200) by step, and around each symbol. */
static void same_names(const struct kallsyms *whole, const struct kallsyms *part, uint64_t step)
{
	CHECK(whole->text == part->text && whole->etext == part->etext);
	CHECK(whole->has_text == part->has_text && whole->has_etext == part->has_etext);
	uint64_t top = whole->has_etext ? whole->etext - whole->text + 0x200 : 0x10000;
	for (uint64_t off = 0; off < top; off += step)
		same_answer(whole, part, off);
	for (size_t i = 0; i < whole->n; i++) {
		uint64_t o = whole->v[i].addr - whole->text;
		same_answer(whole, part, o);
		same_answer(whole, part, o - 1);
		same_answer(whole, part, o + 1);
	}
	same_answer(whole, part, UINT64_MAX);
}

static void decoded(const char *enc, size_t len, struct kallsyms *ks)
{
	struct err e = {0};
	CHECK_INT(kallsyms__decode(enc, len, ks, &e), 0);
}

/* Read to the end, in every cut: encode(parse()) byte for byte. */
static void t_same_bytes(void)
{
	const char *texts[] = {KERNEL_ORDER, ETEXT_DATA, NO_ETEXT, ZEROS, "", "\n\n"};
	for (size_t t = 0; t < sizeof(texts) / sizeof(*texts); t++) {
		size_t len = strlen(texts[t]), elen = 0;
		char *want = encode_text(texts[t], len, &elen);
		for (size_t chunk = 0; chunk <= 41; chunk++) {
			char *got = NULL;
			size_t glen = 0, consumed = 0;
			struct err e = {0};
			CHECK_INT(stream(texts[t], len, chunk, true, &got, &glen, &consumed, &e), 0);
			CHECK(glen == elen && memcmp(got, want, elen) == 0);
			CHECK_INT(consumed, len);
			free(got);
		}
		/* without its last newline: the last line is still taken */
		if (len > 1 && texts[t][len - 1] == '\n' && texts[t][len - 2] != '\n') {
			char *got = NULL;
			size_t glen = 0, consumed = 0;
			struct err e = {0};
			CHECK_INT(stream(texts[t], len - 1, 5, true, &got, &glen, &consumed, &e), 0);
			CHECK(glen == elen && memcmp(got, want, elen) == 0);
			free(got);
		}
		free(want);
	}
}

/* Stopped past `_etext`: the table of the text up to that line, which
 * names every offset as the whole text does; no `_etext`, or nothing but
 * zeros: read to the end. */
static void t_stops_at_etext(void)
{
	struct {
		const char *text, *stop_after; /* the last line taken, or NULL: all */
	} cases[] = {
		{KERNEL_ORDER, "ffffffff81000100 T _etext\n"},
		{ETEXT_DATA, "ffffffff81000040 T _sinittext\n"},
		{NO_ETEXT, NULL},
		{ZEROS, NULL},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		const char *text = cases[c].text;
		size_t len = strlen(text), stop = len;
		if (cases[c].stop_after) {
			const char *at = strstr(text, cases[c].stop_after);
			CHECK(at != NULL);
			stop = (size_t)(at - text) + strlen(cases[c].stop_after);
		}
		size_t plen = 0;
		char *prefix_enc = encode_text(text, stop, &plen);
		struct kallsyms whole = {0};
		struct err e = {0};
		CHECK_INT(kallsyms__parse(text, len, &whole, &e), 0);
		for (size_t chunk = 0; chunk <= 23; chunk++) {
			char *got = NULL;
			size_t glen = 0, consumed = 0;
			int rc = stream(text, len, chunk, false, &got, &glen, &consumed, &e);
			CHECK_INT(rc, 0);
			CHECK_INT(consumed, stop);
			CHECK(glen == plen && memcmp(got, prefix_enc, plen) == 0);
			struct kallsyms part = {0};
			decoded(got, glen, &part);
			part.zeros = whole.zeros; /* the text's, not the cache form's guess */
			same_names(&whole, &part, 1);
			kallsyms__release(&part);
			free(got);
		}
		kallsyms__release(&whole);
		free(prefix_enc);
	}
}

/* Not in the kernel's order: refused, for the whole text to be parsed;
 * a malformed line before the stop: kallsyms__parse's error; after it:
 * never read. */
static void t_refused(void)
{
	static const char unordered[] = "ffffffff81000000 T _text\n"
					"ffffffff81000020 T f2\n"
					"ffffffff81000010 T f1\n"
					"ffffffff81000100 T _etext\n";
	static const char bad_before[] = "ffffffff81000000 T _text\n"
					 "ffffffff81000010 T f1\n"
					 "zzz T x\n"
					 "ffffffff81000100 T _etext\n";
	static const char bad_after[] = "ffffffff81000000 T _text\n"
					"ffffffff81000100 T _etext\n"
					"zzz T x\n";
	char *got = NULL;
	size_t glen = 0, consumed = 0;
	struct err e = {0}, pe = {0};
	for (size_t chunk = 0; chunk < 9; chunk++) {
		CHECK_INT(stream(unordered, strlen(unordered), chunk, true, &got, &glen, &consumed, &e),
			  KALLSYMS_UNORDERED);
		CHECK(got == NULL);
		CHECK(stream(bad_before, strlen(bad_before), chunk, false, &got, &glen, &consumed, &e) < 0);
		CHECK(got == NULL);
	}
	struct kallsyms ks = {0};
	CHECK(kallsyms__parse(bad_before, strlen(bad_before), &ks, &pe) < 0);
	CHECK_STR(e.msg, pe.msg); /* "kallsyms line 3: ..." */
	CHECK(strstr(e.msg, "line 3") != NULL);
	/* a NUL in a name: malformed for both (a C string would cut the name) */
	static const char nul[] = "ffffffff81000000 T _text\nffffffff81000010 T na\0me\n";
	CHECK(stream(nul, sizeof(nul) - 1, 3, false, &got, &glen, &consumed, &e) < 0);
	CHECK(kallsyms__parse(nul, sizeof(nul) - 1, &ks, &pe) < 0);
	CHECK_STR(e.msg, pe.msg);
	CHECK(strstr(e.msg, "line 2") != NULL);
	CHECK_INT(stream(bad_after, strlen(bad_after), 7, false, &got, &glen, &consumed, &e), 0);
	free(got);
	CHECK(stream(bad_after, strlen(bad_after), 7, true, &got, &glen, &consumed, &e) < 0);
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

/* The whole running kernel's table, or a visible skip. */
static char *running_kernel(size_t *len, struct kallsyms *whole)
{
	char *text = read_proc_kallsyms(len);
	struct err e = {0};
	if (!text || kallsyms__parse(text, *len, whole, &e) != 0 || whole->zeros ||
	    !whole->has_text || !whole->has_etext || whole->n < 100)
		SKIP("/proc/kallsyms shows no addresses here (not root, or kptr_restrict)");
	return text;
}

/* The running kernel's text: to the end, encode(parse()) byte for byte;
 * stopped, the same names for every offset around every symbol. */
static void t_running_kernel(void)
{
	size_t len = 0, elen = 0;
	struct kallsyms whole = {0};
	char *text = running_kernel(&len, &whole);
	char *want = kallsyms__encode(&whole, &elen);
	CHECK(want != NULL);
	char *got = NULL;
	size_t glen = 0, consumed = 0;
	struct err e = {0};
	CHECK_INT(stream(text, len, 4096, true, &got, &glen, &consumed, &e), 0);
	CHECK(glen == elen && memcmp(got, want, elen) == 0);
	free(got);
	CHECK_INT(stream(text, len, 4096, false, &got, &glen, &consumed, &e), 0);
	CHECK(consumed <= len && glen <= elen);
	struct kallsyms part = {0};
	decoded(got, glen, &part);
	same_names(&whole, &part, 4096 + 7);
	fprintf(stderr, "read %zu of %zu bytes, %zu of %zu symbols\n", consumed, len, part.n,
		whole.n);
	kallsyms__release(&part);
	free(got);
	free(want);
	kallsyms__release(&whole);
	free(text);
}

/* The table the read-ahead left in cache (dir/nunatak/kallsyms/BOOT.bin). */
static char *cached_table(const char *cache, size_t *len)
{
	char *dirpath = NULL, *path = NULL;
	CHECK(asprintf(&dirpath, "%s/nunatak/kallsyms", cache) > 0);
	DIR *dir = opendir(dirpath);
	for (struct dirent *de; dir && (de = readdir(dir));)
		if (strlen(de->d_name) > 4 && !strcmp(de->d_name + strlen(de->d_name) - 4, ".bin")) {
			free(path);
			CHECK(asprintf(&path, "%s/%s", dirpath, de->d_name) > 0);
		}
	if (dir)
		closedir(dir);
	free(dirpath);
	FILE *f = path ? fopen(path, "rb") : NULL;
	free(path);
	if (!f)
		return NULL;
	char *b = malloc(256u << 20);
	*len = b ? fread(b, 1, 256u << 20, f) : 0;
	fclose(f);
	return b;
}

/* Names off through the cache (no read-ahead): want is what the whole
 * /proc/kallsyms names it (NULL: nothing). */
static void name_from_cache(uint64_t off, const char *want)
{
	struct utsname u;
	CHECK(uname(&u) == 0);
	struct attrib_opts o = {.recorded_kernel = u.release};
	struct pivot p;
	pivot__init(&p);
	struct hotspot h = {.module = (char *)"[kernel.kallsyms]", .offset = off,
			    .has_offset = true, .level = RESOLUTION_UNRESOLVED};
	struct measurement m = {.hotspot = pivot__add_hotspot(&p, &h),
				.counter = (char *)"task-clock", .value = 1000.0,
				.unit = (char *)"ns", .quality = QUALITY_MEASURED,
				.sample_count = 1, .coverage = -1};
	pivot__add_measurement(&p, &m);
	struct degradations d = {0};
	struct err e = {0};
	struct attrib_kstore *st = NULL;
	CHECK_INT(attrib_kernel(&p, NULL, &o, &d, &st, &e), 0);
	CHECK(st == NULL); /* the cache was read: nothing to store */
	CHECK_INT(d.n, 0);
	CHECK_INT(p.nr_hotspots, 1);
	if (want) {
		CHECK_STR(p.hotspots[0].name, want);
		CHECK_INT(p.hotspots[0].level, RESOLUTION_FUNCTION);
	} else {
		CHECK(p.hotspots[0].name == NULL);
		CHECK_INT(p.hotspots[0].level, RESOLUTION_UNRESOLVED);
	}
	pivot__release(&p);
	degradations__release(&d);
}

/* A first Run's read-ahead stores the table it read, even with no kernel
 * sample to name (the Run before this change stored only once it had
 * named one); a later Run names from that cache the highest offsets the
 * kernel can name (the last function before `_etext`, its last byte) and
 * none at or past `_etext`, as the whole /proc/kallsyms does. */
static void t_cache_later_run(void)
{
	size_t len = 0;
	struct kallsyms whole = {0};
	char *text = running_kernel(&len, &whole);
	free(text);
	char *cache = tmpdir();
	CHECK(cache != NULL);
	setenv("XDG_CACHE_HOME", cache, 1);
	struct attrib_kprefetch *k = attrib_kernel_prefetch();
	CHECK(k != NULL);
	attrib_kernel_prefetch_free(k); /* no naming: the Run had no kernel sample */
	size_t clen = 0;
	char *enc = cached_table(cache, &clen);
	CHECK(enc != NULL && clen > 0);
	struct kallsyms part = {0};
	decoded(enc, clen, &part);
	same_names(&whole, &part, 4096 + 7);
	/* never a symbol the text does not hold: each is the whole table's */
	for (size_t i = 0, j = 0; i < part.n; i++) {
		while (j < whole.n && whole.v[j].addr < part.v[i].addr)
			j++;
		CHECK(j < whole.n && whole.v[j].addr == part.v[i].addr);
		if (part.v[i].addr < whole.etext)
			CHECK_STR(part.v[i].name, whole.v[j].name);
	}
	/* the highest offsets: the last symbol before `_etext` */
	size_t last = 0;
	for (size_t i = 0; i < whole.n; i++)
		if (whole.v[i].addr < whole.etext)
			last = i;
	uint64_t lo = whole.v[last].addr - whole.text, et = whole.etext - whole.text, end = 0;
	CHECK(kallsyms__find(&whole, lo, &end) != NULL);
	name_from_cache(lo, whole.v[last].name);
	name_from_cache(end - 1, whole.v[last].name);
	name_from_cache(et, NULL);
	name_from_cache(et + 1, NULL);
	unsetenv("XDG_CACHE_HOME");
	free(enc);
	kallsyms__release(&part);
	kallsyms__release(&whole);
	free(cache);
	done();
}

static const struct test_case cases[] = {
	{"same_bytes", "read to the end: encode(parse()) byte for byte, however cut",
	 t_same_bytes},
	{"stops_at_etext", "stopped past _etext: every offset named as by the whole text",
	 t_stops_at_etext},
	{"refused", "not in the kernel's order, malformed lines: as parse says", t_refused},
	{"running_kernel", "the running kernel's text: same bytes; stopped, same names",
	 t_running_kernel},
	{"cache_later_run", "the read-ahead's cache names a later Run's highest offsets",
	 t_cache_later_run},
};
TEST_MAIN(cases)
