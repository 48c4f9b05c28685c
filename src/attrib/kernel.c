// SPDX-License-Identifier: BSD-3-Clause
/* Naming kernel samples from /proc/kallsyms (docs/attribution.md, "Kernel"). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/internal.h"
#include "attrib/kallsyms.h"
#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/host_clock.h"
#include "common/degradation_kinds.h"
#include "common/safefs.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "exec/exec.h"

static const char KERNEL[] = "[kernel.kallsyms]";
#define UNAVAILABLE DEG_KERNEL_SYMBOLS_UNAVAILABLE

static bool is_kernel(const char *module)
{
	return module && strcmp(module, KERNEL) == 0;
}

/*
 * The core kernel's text symbols do not change within a boot (modules do,
 * and they are not named here): the table is cached per boot id, in
 * nunatak's compact form of it (kallsyms__encode: a third of kallsyms' text,
 * nothing to format or parse), so a later Run skips reading /proc/kallsyms,
 * whose 100 000+ lines the kernel formats on every read (~36 ms here).
 */
#define KALLSYMS_SEAL "kallsyms 2"
#define KALLSYMS_CACHE_MAX (256u << 20)

/* "<cache>/kallsyms/<boot id><ext>" (malloc'd), or NULL. */
static char *boot_path(const char *ext)
{
	char boot[HOST_CLOCK_BOOT_ID_SIZE];
	if (host_boot_id(boot) != 0)
		return NULL;
	int no_home = 0;
	char *dir = cache_home_path("kallsyms", &no_home);
	char *path = dir ? xasprintf("%s/%s%s", dir, boot, ext) : NULL;
	xfree(dir);
	return path;
}

static char *cache_path(void)
{
	return boot_path(".bin");
}

static void cache_store(const char *path, const char *b, size_t len)
{
	if (fs_write_cache(path, b, len, 0600) == 0) /* 0600: kernel addresses */
		(void)cache_seal_text(path, KALLSYMS_SEAL, strlen(KALLSYMS_SEAL), b, len);
}

/*
 * A table read from the kernel by a naming without a read-ahead (the
 * read-ahead stores its own as soon as it has read it) is stored (writing
 * ~1.7 MB, sealing it; the write of new page-cache pages is slow on some
 * VMs) on a thread of its own while attribution goes on (the symbolizer
 * process runs meanwhile); attrib_run joins it before it returns. Without
 * a thread the store runs where it used to.
 */
struct attrib_kstore {
	pthread_t th;
	char *path, *bytes;
	size_t len;
};

static void *kstore_run(void *arg)
{
	struct attrib_kstore *st = arg;
	cache_store(st->path, st->bytes, st->len);
	return NULL;
}

static void kstore_free(struct attrib_kstore *st)
{
	xfree(st->path);
	xfree(st->bytes);
	xfree(st);
}

/* Takes path and bytes over; NULL when the store ran here (or no memory). */
static struct attrib_kstore *kstore_start(char *path, char *bytes, size_t len)
{
	struct attrib_kstore *st = xcalloc(1, sizeof(*st));
	if (st) {
		*st = (struct attrib_kstore){.path = path, .bytes = bytes, .len = len};
		if (pthread_create(&st->th, NULL, kstore_run, st) == 0)
			return st;
		st->path = st->bytes = NULL;
		xfree(st);
	}
	cache_store(path, bytes, len);
	xfree(path);
	xfree(bytes);
	return NULL;
}

void attrib_kernel_store_join(struct attrib_kstore *st)
{
	if (!st)
		return;
	pthread_join(st->th, NULL);
	kstore_free(st);
}

/* The cached table's bytes, ours and sealed by us (common/cache_home.h: a
 * forged symbol table would name the kernel's samples), not decoded yet:
 * only the symbols a Run's samples fall in are (kallsyms__decode_for). */
static char *cache_load(const char *path, size_t *len)
{
	char *buf = NULL;
	*len = 0;
	if (path && (safefs_read_owned(path, KALLSYMS_CACHE_MAX, &buf, len) != 0 ||
		     cache_sealed_text_problem(path, KALLSYMS_SEAL, strlen(KALLSYMS_SEAL), buf,
					       *len))) {
		xfree(buf);
		buf = NULL;
	}
	return buf;
}

/* What reading the kernel's table gave: its cache form (from the cache, or
 * read from the kernel's text now), or why not. */
struct ktable {
	char *cache;    /* its cache path (NULL: no cache home, or a path given) */
	char *bytes;    /* the table in cache form, len bytes */
	size_t len;
	bool read;      /* bytes read from the text now, not from the cache */
	bool zeros;     /* read: every address 0 (kptr_restrict, or not root) */
	bool names;     /* read: addresses, `_text` and symbols: it can name */
	bool stored;    /* read and stored in the cache already */
	int read_errno; /* the text could not be read */
	int rc;         /* malformed text (or no memory): e says why */
	struct err e;
};

/* A proc file has no size: read until EOF. NULL with *why set on failure. */
static char *slurp(const char *path, size_t *len, int *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = errno;
		return NULL;
	}
	size_t cap = 1 << 20, n = 0;
	char *b = xmalloc(cap);
	while (b) {
		if (n == cap && xgrow((void **)&b, &cap, cap + 1, 1)) {
			xfree(b);
			b = NULL;
			break;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				*why = errno;
				xfree(b);
				b = NULL;
			}
			break;
		}
		n += (size_t)r;
	}
	if (!b && !*why)
		*why = ENOMEM;
	close(fd);
	*len = n;
	return b;
}

/* Text not in the kernel's order (kallsyms_enc refused it): the whole of
 * it parsed, sorted, then encoded. No kernel lists it so; a file given
 * for tests may. */
static void read_whole(struct ktable *t, const char *path)
{
	size_t len = 0;
	char *buf = slurp(path, &len, &t->read_errno);
	struct kallsyms ks = {0};
	if (buf && !(t->rc = kallsyms__parse(buf, len, &ks, &t->e))) {
		t->zeros = ks.zeros;
		t->names = !ks.zeros && ks.has_text && ks.n;
		if (!(t->bytes = kallsyms__encode(&ks, &t->len)))
			t->rc = err_oom(&t->e);
	}
	kallsyms__release(&ks);
	xfree(buf);
}

/* The lines a tap keeps as the text goes by (kernel.c's one read for the
 * boot's two tables, attrib.h): whole lines, one begun in an earlier
 * chunk carried over. eof: the text was read to its end. */
struct ktap_scan {
	const struct attrib_ktap *tap;
	char *carry, *out;
	size_t carry_len, carry_cap, len, cap;
	bool eof;
	int rc;
};

static int tap_line(struct ktap_scan *s, const char *l, size_t n)
{
	if (!s->tap->keep(l, n))
		return 0;
	if (xgrow((void **)&s->out, &s->cap, s->len + n + 2, 1) < 0)
		return -ENOMEM;
	memcpy(s->out + s->len, l, n);
	s->len += n;
	s->out[s->len++] = '\n';
	s->out[s->len] = '\0';
	return 0;
}

/* n more bytes to the carried line; -ENOMEM */
static int tap_carry(struct ktap_scan *s, const char *p, size_t n)
{
	if (xgrow((void **)&s->carry, &s->carry_cap, s->carry_len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(s->carry + s->carry_len, p, n);
	s->carry_len += n;
	return 0;
}

static void tap_feed(struct ktap_scan *s, const char *buf, size_t len)
{
	for (const char *p = buf, *end = buf + len; s->rc == 0 && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (!nl || s->carry_len) /* a line begun, or ended, here */
			s->rc = tap_carry(s, p, n);
		if (nl && s->rc == 0) {
			s->rc = s->carry_len ? tap_line(s, s->carry, s->carry_len) : tap_line(s, p, n);
			s->carry_len = 0;
		}
		p = nl ? nl + 1 : end;
	}
}

/* The text's end: a last line without newline is taken; tap->done(). */
static int tap_finish(struct ktap_scan *s)
{
	if (s->rc == 0 && s->carry_len)
		s->rc = tap_line(s, s->carry, s->carry_len);
	if (s->rc == 0 && !s->eof)
		s->rc = -EIO;
	return s->rc ? s->rc : s->tap->done(s->out ? s->out : "", s->len);
}

static void tap_release(struct ktap_scan *s)
{
	xfree(s->carry);
	xfree(s->out);
	*s = (struct ktap_scan){0};
}

/* The text of path straight to the cache form, as the kernel formats it
 * (4 kB a read), up to the end of the core kernel's text (kallsyms.h,
 * kallsyms_enc): the lines after it are neither formatted nor read.
 * With a tap (s) the read goes on to the end for the tap's lines; without
 * table, only for them (t: only read_errno set). */
static void read_text(struct ktable *t, const char *path, struct ktap_scan *s, bool table)
{
	struct kallsyms_enc k;
	kallsyms_enc__init(&k, false);
	t->read = table;
	const size_t cap = 64 << 10;
	char *buf = xmalloc(cap);
	int fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	int rc = buf ? 0 : (t->rc = err_oom(&t->e));
	if (fd < 0 && buf)
		t->read_errno = errno;
	if (!table)
		rc = KALLSYMS_COMPLETE; /* nothing to encode */
	while (fd >= 0 && rc >= 0 && (rc == 0 || (s && s->rc == 0))) {
		ssize_t r = read(fd, buf, cap);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			t->read_errno = r < 0 ? errno : 0;
			if (s)
				s->eof = r == 0;
			break;
		}
		if (s)
			tap_feed(s, buf, (size_t)r);
		if (rc == 0)
			rc = kallsyms_enc__feed(&k, buf, (size_t)r, &t->e);
	}
	if (fd >= 0)
		close(fd);
	xfree(buf);
	if (table && !t->read_errno && !t->rc && rc >= 0 && rc != KALLSYMS_UNORDERED)
		rc = kallsyms_enc__finish(&k, &t->bytes, &t->len, &t->e);
	if (table && rc < 0 && !t->read_errno)
		t->rc = rc;
	t->zeros = k.head.zeros;
	t->names = !k.head.zeros && k.head.has_text && k.count;
	kallsyms_enc__release(&k);
	if (table && rc == KALLSYMS_UNORDERED && !t->read_errno)
		read_whole(t, path);
}

/* From the cache when it holds a sealed table (unless skip_cache), else
 * read from path. */
static void ktable_read(struct ktable *t, const char *kallsyms_path, bool skip_cache)
{
	const char *path = kallsyms_path ? kallsyms_path : "/proc/kallsyms";
	if (!t->cache)
		t->cache = kallsyms_path ? NULL : cache_path();
	if (!skip_cache && t->cache && (t->bytes = cache_load(t->cache, &t->len)))
		return;
	read_text(t, path, NULL, true);
}

/* The symbols the offsets need from the bytes into ks; false (ks empty)
 * when they are not a table that names symbols (e, when given: why they
 * do not decode). A table read now names what kallsyms__parse of its text
 * names (t->names checked): zeros as the text says, not as its cache form
 * suggests. */
static bool ktable_decode(struct ktable *t, const uint64_t *offs, size_t n, struct kallsyms *ks,
			  struct err *e)
{
	struct err own = {0};
	size_t total = 0;
	bool ok = kallsyms__decode_for(t->bytes, t->len, offs, n, ks, &total, e ? e : &own) == 0;
	if (ok && t->read)
		ks->zeros = t->zeros;
	ok = ok && !ks->zeros && ks->has_text && total;
	if (!ok)
		kallsyms__release(ks);
	return ok;
}

static void ktable_release(struct ktable *t)
{
	xfree(t->cache);
	t->cache = NULL;
	xfree(t->bytes);
	t->bytes = NULL;
}

/*
 * The table read ahead (attrib.h, attrib_kernel_prefetch): /proc/kallsyms
 * is ~40 ms of the kernel's formatting on a first Run (its cache's read and
 * seal check ~1-2 ms on a later one, the symbols named then decoded for
 * the samples only), on nunatak's critical path once the
 * application has ended; read while perf starts (which reads it itself, four
 * times, before the application runs) it is off that path on any second
 * core. Every signal is blocked in the thread: they stay the main thread's.
 */
struct attrib_kprefetch {
	pthread_t th;
	bool joined, taken; /* taken: a second naming reads the table itself */
	const struct attrib_ktap *tap; /* perf's lines too, on a miss of the cache */
	struct ktable t;
};

#define KLOCK_WAIT_S 20.0

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int attrib_kernel_lock(bool (*ready)(void *), void *arg)
{
	/* one per boot: the nodes of a cluster sharing $HOME do not wait
	 * for each other (each reads its own kernel) */
	char *path = boot_path(".lock");
	char *slash = path ? strrchr(path, '/') : NULL;
	if (slash)
		*slash = '\0';
	int rc = slash ? fs_mkdir_p(path) : -1;
	if (slash)
		*slash = '/';
	int fd = rc == 0 ? open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	xfree(path);
	/* polled: a holder only reads /proc/kallsyms and writes two files
	 * (~40 ms, more under load); one that does not let go is outlived,
	 * not waited for */
	double end = fd >= 0 ? mono_s() + KLOCK_WAIT_S : 0;
	long nap_ns = 1000000;
	while (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || mono_s() > end ||
		    (ready && ready(arg))) {
			close(fd);
			return -1;
		}
		nanosleep(&(struct timespec){0, nap_ns}, NULL);
		nap_ns = nap_ns < 4000000 ? nap_ns * 2 : nap_ns; /* 1, 2, 4, 4 ... ms */
	}
	return fd;
}

void attrib_kernel_unlock(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN); /* a child forked meanwhile keeps no hold on it */
	close(fd);
}

/* Not under a lock of the caller's: the table read (to the end) and the
 * tap's lines given, unless the cache holds the table now (then the tap's
 * table was made with it, or reads its own). The table is stored before
 * the lock is let go: a reader waiting for it finds it. */
static void read_with_tap(struct ktable *t, const struct attrib_ktap *tap)
{
	int lock = attrib_kernel_lock(NULL, NULL);
	if (!(t->bytes = cache_load(t->cache, &t->len))) {
		struct ktap_scan s = {.tap = tap};
		read_text(t, "/proc/kallsyms", &s, true);
		(void)tap_finish(&s);
		tap_release(&s);
		if (t->bytes && t->names && !t->rc && !t->read_errno) {
			cache_store(t->cache, t->bytes, t->len);
			t->stored = true;
		}
	}
	attrib_kernel_unlock(lock);
}

int attrib_kernel_read_boot(const struct attrib_ktap *tap)
{
	struct ktable t = {.cache = cache_path()};
	size_t len = 0;
	char *have = t.cache ? cache_load(t.cache, &len) : NULL;
	struct ktap_scan s = {.tap = tap};
	read_text(&t, "/proc/kallsyms", &s, t.cache && !have);
	int rc = t.read_errno ? -t.read_errno : tap_finish(&s);
	if (t.bytes && t.names && !t.rc && !t.read_errno)
		cache_store(t.cache, t.bytes, t.len);
	tap_release(&s);
	ktable_release(&t);
	xfree(have);
	return rc;
}

/* A table read from the kernel is stored here, as soon as read: off the
 * path after the application, and for a later Run even when this one has
 * no kernel sample to name. */
static void *kprefetch_run(void *arg)
{
	struct attrib_kprefetch *k = arg;
	struct ktable *t = &k->t;
	t->cache = cache_path();
	if (t->cache && (t->bytes = cache_load(t->cache, &t->len)))
		return NULL;
	if (k->tap && t->cache) {
		read_with_tap(t, k->tap);
		return NULL;
	}
	read_text(t, "/proc/kallsyms", NULL, true);
	if (t->cache && t->bytes && t->names && !t->rc && !t->read_errno) {
		cache_store(t->cache, t->bytes, t->len);
		t->stored = true;
	}
	return NULL;
}

struct attrib_kprefetch *attrib_kernel_prefetch_tap(const struct attrib_ktap *tap)
{
	struct attrib_kprefetch *k = xcalloc(1, sizeof(*k));
	sigset_t all, old;
	sigfillset(&all);
	if (!k || pthread_sigmask(SIG_SETMASK, &all, &old) != 0) {
		xfree(k);
		return NULL;
	}
	k->tap = tap;
	int rc = pthread_create(&k->th, NULL, kprefetch_run, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		xfree(k);
		return NULL;
	}
	return k;
}

struct attrib_kprefetch *attrib_kernel_prefetch(void)
{
	return attrib_kernel_prefetch_tap(NULL);
}

static struct ktable *kprefetch_join(struct attrib_kprefetch *k)
{
	if (!k->joined)
		pthread_join(k->th, NULL);
	k->joined = true;
	return &k->t;
}

bool attrib_kernel_prefetch_taken(const struct attrib_kprefetch *k)
{
	return k && k->taken;
}

void attrib_kernel_prefetch_free(struct attrib_kprefetch *k)
{
	if (!k)
		return;
	ktable_release(kprefetch_join(k));
	xfree(k);
}

/* A table read from path (not the cache): why it cannot name the
 * kernel's samples, or NULL (*rc, e: the text was malformed). */
static const char *why_not(const struct ktable *t, const char *path, char *why, size_t n,
			   const char **remedy, struct err *e, int *rc)
{
	if (t->read_errno) {
		snprintf(why, n, "%s cannot be read (%s)", path, strerror(t->read_errno));
		*remedy = "run as root or set kernel.kptr_restrict=0";
		return why;
	}
	if ((*rc = t->rc)) {
		if (e)
			*e = t->e;
		return NULL;
	}
	if (!t->names) {
		snprintf(why, n, "%s shows no addresses (kptr_restrict, or not root)", path);
		*remedy = "run as root or set kernel.kptr_restrict=0";
		return why;
	}
	return NULL;
}

/* A table read from the kernel now, to be stored in the cache at path. */
struct kto_store {
	char *path, *bytes;
	size_t len;
};

/* Why the kernel samples cannot be named here, or NULL: they can (ks
 * filled with the symbols the kernel offsets offs need, from the cache or
 * from the text read now, the same way; *st, when set, the table read now
 * to be stored: neither from the cache nor stored by the read-ahead). The
 * table read ahead when there is one (taken over), else read here. */
static const char *load(const struct attrib_opts *o, const uint64_t *offs, size_t nofs,
			struct kallsyms *ks, char *why, size_t n, const char **remedy,
			struct kto_store *st, struct err *e, int *rc)
{
	struct utsname u = {0};
	*remedy = "run attribution as root on the kernel that recorded";
	if (!o->recorded_kernel)
		return "the kernel release that recorded is unknown";
	if (uname(&u) != 0 || strcmp(u.release, o->recorded_kernel) != 0) {
		snprintf(why, n, "recorded on kernel %s, attribution runs on %s", o->recorded_kernel,
			 u.release);
		return why;
	}
	const char *path = o->kallsyms_path ? o->kallsyms_path : "/proc/kallsyms";
	struct ktable own = {0}, *t = &own;
	if (o->kernel_prefetch && !o->kallsyms_path && !o->kernel_prefetch->taken) {
		t = kprefetch_join(o->kernel_prefetch);
		o->kernel_prefetch->taken = true;
	} else {
		ktable_read(t, o->kallsyms_path, false);
	}
	const char *no = NULL;
	if (!t->bytes || t->read || !ktable_decode(t, offs, nofs, ks, NULL)) {
		if (t->bytes && !t->read) { /* sealed but not a table that names symbols: read anew */
			zfree(&t->bytes);
			ktable_read(t, o->kallsyms_path, true);
		}
		no = why_not(t, path, why, n, remedy, e, rc);
		struct err de = {0}; /* our own bytes: only memory fails them */
		if (!no && !*rc && !ktable_decode(t, offs, nofs, ks, &de)) {
			*rc = de.errnum ? de.errnum : -EINVAL;
			if (e)
				*e = de;
		}
		if (!no && !*rc && !t->stored && t->cache) {
			*st = (struct kto_store){t->cache, t->bytes, t->len};
			t->cache = t->bytes = NULL;
		}
	}
	ktable_release(t);
	return no;
}

/* The symbols this Run's kernel samples fall in, relative to `_text`: what
 * naming them needs, and what a recording keeps so that its replay names
 * them the same (meta.json "kernel_symbols"), whatever kernel replays. */
struct kexcerpt {
	struct kx_sym {
		uint64_t start, end; /* [start, end) from `_text` */
		char *name;
	} *v;
	size_t n, cap;
};

static void kexcerpt__release(struct kexcerpt *x)
{
	for (size_t i = 0; i < x->n; i++)
		xfree(x->v[i].name);
	xfree(x->v);
	memset(x, 0, sizeof(*x));
}

static const struct kx_sym *kexcerpt__find(const struct kexcerpt *x, uint64_t off)
{
	size_t lo = 0, hi = x->n; /* first symbol starting above off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->v[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && off < x->v[lo - 1].end ? &x->v[lo - 1] : NULL;
}

static int kx_cmp(const void *a, const void *b)
{
	const struct kx_sym *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Adds [start, end) name unless a symbol starting there is already kept;
 * the array is re-sorted by kexcerpt__sort() before any lookup. */
static int kexcerpt__add(struct kexcerpt *x, uint64_t start, uint64_t end, const char *name)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].start == start)
			return 0;
	if (x->n == x->cap && xgrow((void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v)))
		return -ENOMEM;
	char *copy = xstrdup(name);
	if (!copy)
		return -ENOMEM;
	x->v[x->n++] = (struct kx_sym){start, end, copy};
	return 0;
}

static void kexcerpt__sort(struct kexcerpt *x)
{
	if (x->n > 1)
		qsort(x->v, x->n, sizeof(*x->v), kx_cmp);
}

static int keep_offset(struct kexcerpt *x, const struct kallsyms *ks, uint64_t off)
{
	uint64_t end;
	const struct ksym *s = kallsyms__find(ks, off, &end);
	return s ? kexcerpt__add(x, s->addr - ks->text, end, s->name) : 0;
}

/* Every kernel offset of p to be named (malloc'd, *n of them; NULL: out of
 * memory): unresolved kernel Hotspots, kernel stack frames without a name. */
static uint64_t *kernel_offsets(const struct pivot *p, size_t *n)
{
	uint64_t *v = xcalloc(p->nr_hotspots + p->nr_stack_frames + 1, sizeof(*v));
	*n = 0;
	for (size_t h = 0; v && h < p->nr_hotspots; h++) {
		const struct hotspot *hs = &p->hotspots[h];
		if (is_kernel(hs->module) && hs->has_offset && hs->level == RESOLUTION_UNRESOLVED)
			v[(*n)++] = hs->offset;
	}
	for (size_t i = 0; v && i < p->nr_stack_frames; i++) {
		const struct stack_frame *sf = &p->stack_frames[i];
		if (!sf->function && is_kernel(sf->module) && sf->offset != 0)
			v[(*n)++] = sf->offset;
	}
	return v;
}

/* The excerpt of ks that covers every kernel offset of p (offs, n). */
static int kexcerpt__from_kallsyms(struct kexcerpt *x, const uint64_t *offs, size_t n,
				   const struct kallsyms *ks)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = keep_offset(x, ks, offs[i]);
	kexcerpt__sort(x);
	return rc;
}

/* {"kernel": release, "symbols": [{"offset", "end", "name"}]}; NULL on OOM. */
static json_t *kexcerpt__to_json(const struct kexcerpt *x, const char *release)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < x->n; i++)
		if (json_array_append_new(arr, json_pack("{s:I, s:I, s:s}", "offset",
							 (json_int_t)x->v[i].start, "end",
							 (json_int_t)x->v[i].end, "name",
							 x->v[i].name)) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	return arr ? json_pack("{s:s?, s:o}", "kernel", release, "symbols", arr) : NULL;
}

/* Reads a recording's "kernel_symbols"; false with *why when malformed
 * (a hand-edited or truncated entry): then nothing is named. */
static bool kexcerpt__from_json(struct kexcerpt *x, const json_t *j, const char **why)
{
	json_t *arr = json_object_get(j, "symbols");
	*why = "the recording's kernel_symbols is malformed (expected symbols: "
	       "[{offset, end, name}] with offset < end)";
	if (!json_is_array(arr))
		return false;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		json_t *a = json_object_get(o, "offset"), *b = json_object_get(o, "end");
		const char *n = json_string_value(json_object_get(o, "name"));
		if (!json_is_integer(a) || !json_is_integer(b) || !n || json_integer_value(a) < 0 ||
		    json_integer_value(b) <= json_integer_value(a))
			return false;
		if (kexcerpt__add(x, (uint64_t)json_integer_value(a),
				  (uint64_t)json_integer_value(b), n)) {
			*why = "out of memory";
			return false;
		}
	}
	kexcerpt__sort(x);
	for (size_t i = 1; i < x->n; i++)
		if (x->v[i].start < x->v[i - 1].end)
			return false;
	return true;
}

/* One chain per distinct named symbol, owned by the caller's array. */
static const struct attrib_chain *chain_for(struct attrib_chain *chains, size_t *nr,
					    const struct kx_sym *s)
{
	for (size_t i = 0; i < *nr; i++)
		if (chains[i].frames[0].start == s->start)
			return &chains[i];
	struct attrib_chain *c = &chains[*nr];
	c->frames = xcalloc(1, sizeof(*c->frames));
	if (!c->frames || !(c->frames[0].function = xstrdup(s->name))) {
		xfree(c->frames);
		c->frames = NULL;
		return NULL;
	}
	c->nr_frames = 1;
	c->address = s->start;
	c->frames[0].start = s->start;
	c->frames[0].has_start = true;
	(*nr)++;
	return c;
}

static int name_all(struct pivot *p, const struct kexcerpt *kx, struct hotspot_attr *attr,
		    struct attrib_chain *chains, size_t *nr)
{
	for (size_t h = 0; h < p->nr_hotspots; h++) {
		const struct hotspot *hs = &p->hotspots[h];
		if (!is_kernel(hs->module) || !hs->has_offset || hs->level != RESOLUTION_UNRESOLVED)
			continue;
		const struct kx_sym *s = kx ? kexcerpt__find(kx, hs->offset) : NULL;
		attr[h].fold = true;
		if (s && !(attr[h].chain = chain_for(chains, nr, s)))
			return -ENOMEM;
		if (s)
			attr[h].level = RESOLUTION_FUNCTION;
	}
	for (size_t i = 0; kx && i < p->nr_stack_frames; i++) {
		struct stack_frame *sf = &p->stack_frames[i];
		/* offset 0 is `_text` itself: what a frame without offset holds */
		if (sf->function || !is_kernel(sf->module) || sf->offset == 0)
			continue;
		const struct kx_sym *s = kexcerpt__find(kx, sf->offset);
		if (s && !(sf->function = xstrdup(s->name)))
			return -ENOMEM;
	}
	return 0;
}

static size_t count_kernel(const struct pivot *p)
{
	size_t k = 0;
	for (size_t h = 0; h < p->nr_hotspots; h++)
		k += is_kernel(p->hotspots[h].module) && p->hotspots[h].has_offset &&
		     p->hotspots[h].level == RESOLUTION_UNRESOLVED;
	return k;
}

/* Live: kallsyms, and the excerpt the Run's samples need written into a
 * recording (executor__annotate is a no-op for other executors). Replay: the
 * recorded excerpt, or nothing for an entry recorded without one. Returns
 * why nothing is named (NULL: kx filled); *silent for an old replay. */
static const char *excerpt(struct pivot *p, struct executor *x, const struct attrib_opts *o,
			   struct kexcerpt *kx, char *why, size_t n, const char **remedy,
			   bool *silent, struct attrib_kstore **st, struct err *e, int *rc)
{
	*silent = false;
	if (o->replay) {
		const json_t *meta = x ? executor__recorded_meta(x) : NULL;
		const json_t *j = json_object_get(meta, "kernel_symbols");
		const char *bad = NULL;
		*remedy = "record the Run again with this nunatak";
		*silent = !j; /* recorded before nunatak kept kernel symbols */
		return !j ? "replay" : kexcerpt__from_json(kx, j, &bad) ? NULL : bad;
	}
	struct kallsyms ks = {0};
	struct kto_store store = {0};
	size_t nofs = 0;
	uint64_t *offs = kernel_offsets(p, &nofs);
	if (!offs) {
		*rc = err_oom(e);
		return NULL;
	}
	const char *no = load(o, offs, nofs, &ks, why, n, remedy, &store, e, rc);
	if (!no && !*rc && kexcerpt__from_kallsyms(kx, offs, nofs, &ks))
		*rc = err_oom(e);
	xfree(offs);
	bool keep = store.path && !no && !*rc;
	if (keep && st) {
		*st = kstore_start(store.path, store.bytes, store.len); /* takes them over */
		store.path = store.bytes = NULL;
	} else if (keep) {
		cache_store(store.path, store.bytes, store.len); /* a caller that joins no thread */
	}
	xfree(store.path);
	xfree(store.bytes);
	kallsyms__release(&ks);
	if (no || *rc)
		return no;
	json_t *meta = json_object();
	json_t *kj = kexcerpt__to_json(kx, o->recorded_kernel);
	if (!meta || !kj || json_object_set_new(meta, "kernel_symbols", kj) < 0) {
		if (!meta)
			json_decref(kj);
		json_decref(meta);
		*rc = err_oom(e);
		return NULL;
	}
	if (x && executor__annotate(x, meta) < 0)
		*rc = err_set(e, -EIO, ERR_EXEC_RECORD,
			      "cannot write the kernel symbols into the recording's meta.json");
	json_decref(meta);
	return NULL;
}

int attrib_kernel(struct pivot *p, struct executor *x, const struct attrib_opts *o,
		  struct degradations *d, struct attrib_kstore **st, struct err *e)
{
	size_t k = count_kernel(p);
	if (!k)
		return 0;
	struct kexcerpt kx = {0};
	char why[512];
	const char *remedy = NULL;
	bool silent = false;
	int rc = 0;
	const char *no = excerpt(p, x, o, &kx, why, sizeof(why), &remedy, &silent, st, e, &rc);
	char msg[640];
	snprintf(msg, sizeof(msg),
		 "kernel samples stay one unresolved [kernel.kallsyms] Hotspot: %s", no ? no : "");
	if (!rc && no && !silent && degradations__add(d, UNAVAILABLE, msg, remedy) < 0)
		rc = err_oom(e);
	struct hotspot_attr *attr = xcalloc(p->nr_hotspots, sizeof(*attr));
	struct attrib_chain *chains = xcalloc(k, sizeof(*chains));
	size_t nr = 0;
	if (!rc && (!attr || !chains))
		rc = err_oom(e);
	if (!rc && name_all(p, no ? NULL : &kx, attr, chains, &nr))
		rc = err_oom(e);
	if (!rc)
		rc = attrib_fuse(p, attr, e);
	for (size_t i = 0; i < nr; i++) {
		xfree(chains[i].frames[0].function);
		xfree(chains[i].frames);
	}
	xfree(chains);
	xfree(attr);
	kexcerpt__release(&kx);
	return rc;
}
