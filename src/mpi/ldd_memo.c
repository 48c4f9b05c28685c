// SPDX-License-Identifier: BSD-3-Clause
/* ldd's answers kept between Runs (ldd_memo.h). Entry, one file per key
 * under <cache>/nunatak/ldd/:
 *   "nunatak-ldd 1\n" <seal> "\n"
 *   "key " <key> "\n"
 *   ("dep " <path> "\t" <identity> "\n")*
 *   "text\n" <what ldd printed>
 * the seal covering everything after its own line. */
#include "mpi/ldd_memo.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/sha256.h"
#include "exec/exec.h"

#define MEMO_MAGIC "nunatak-ldd 1\n"
#define MEMO_MAX (1u << 20)
/* A file changed less than this long ago (ns) may change again within the
 * same tick of the file system's clock, unseen by its timestamps. */
#define MEMO_RACY_NS 1000000000LL
#define ID_SIZE 160

struct deps {
	char **v;
	size_t n, cap;
};

static void deps__release(struct deps *d)
{
	for (size_t i = 0; i < d->n; i++)
		xfree(d->v[i]);
	xfree(d->v);
	memset(d, 0, sizeof(*d));
}

/* Adds the first n bytes of path once; -1 on ENOMEM or a path that cannot
 * be one line of the entry. */
static int deps_add(struct deps *d, const char *path, size_t n)
{
	if (memchr(path, '\n', n) || memchr(path, '\t', n))
		return -1;
	for (size_t i = 0; i < d->n; i++)
		if (strlen(d->v[i]) == n && memcmp(d->v[i], path, n) == 0)
			return 0;
	if (xgrow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0)
		return -1;
	if (!(d->v[d->n] = xstrndup(path, n)))
		return -1;
	d->n++;
	return 0;
}

/* "<dev>:<ino>:<size>:<mtime>:<ctime>" of path (ns), "-" when it cannot be
 * stat'ed (an absence is a state too); *newest (may be NULL) gets the later
 * of its mtime and ctime in ns. */
static void identity(const char *path, char out[ID_SIZE], int64_t *newest)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(out, ID_SIZE, "-");
		if (newest)
			*newest = 0;
		return;
	}
	snprintf(out, ID_SIZE, "%ju:%ju:%jd:%jd.%09ld:%jd.%09ld", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino, (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	int64_t m = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	int64_t c = (int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
	if (newest)
		*newest = m > c ? m : c;
}

/* An entry of a loader variable the working directory resolves (an empty
 * LD_LIBRARY_PATH entry is the working directory). */
static bool relative_entry(const char *v, const char *seps)
{
	for (const char *p = v && *v ? v : NULL; p;) {
		size_t n = strcspn(p, seps);
		if (n == 0 ? strchr(seps, ' ') == NULL : p[0] != '/')
			return true;
		p = p[n] ? p + n + 1 : NULL;
	}
	return false;
}

/* What the answer is kept under, or NULL when it must not be kept: ldd's
 * identity, the program's path, the loader's variables and, when they
 * resolve through it, the working directory. */
static char *memo_key(const char *path)
{
	const char *lp = getenv("LD_LIBRARY_PATH"), *pre = getenv("LD_PRELOAD");
	if ((lp && strchr(lp, '$')) || (pre && strchr(pre, '$'))) /* $LIB, $ORIGIN: not expanded here */
		return NULL;
	char *ldd = NULL, id[ID_SIZE], cwd[4096] = "";
	if (exec_which("ldd", &ldd) != 0)
		return NULL;
	identity(ldd, id, NULL);
	bool rel = path[0] != '/' || relative_entry(lp, ":") || relative_entry(pre, ": ");
	char *key = NULL;
	if (!rel || getcwd(cwd, sizeof(cwd)))
		key = xasprintf("ldd %s %s\tprogram %s\tLD_LIBRARY_PATH=%s\tLD_PRELOAD=%s\tcwd %s",
				ldd, id, path, lp ? lp : "", pre ? pre : "", cwd);
	xfree(ldd);
	if (key && strchr(key, '\n')) {
		xfree(key);
		key = NULL;
	}
	return key;
}

/* The object of one ldd line ("\tNAME => /PATH (0x...)", "\t/PATH (0x...)"),
 * or NULL; *n its length. */
static const char *line_object(const char *l, size_t len, size_t *n)
{
	const char *arrow = memmem(l, len, "=> ", 3);
	const char *p = arrow ? arrow + 3 : l;
	while (!arrow && p < l + len && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= l + len || *p != '/')
		return NULL;
	size_t rest = len - (size_t)(p - l);
	const char *addr = memmem(p, rest, " (0x", 4);
	*n = addr ? (size_t)(addr - p) : rest;
	return p;
}

/* What the answer depends on beyond its key; -1 when it must not be kept
 * (a library not found: where it would be found is not known). */
static int collect_deps(struct deps *d, const char *path, const char *text)
{
	int rc = deps_add(d, path, strlen(path));
	const char *fixed[] = {"/etc/ld.so.cache", "/etc/ld.so.preload"};
	for (size_t i = 0; rc == 0 && i < 2; i++)
		rc = deps_add(d, fixed[i], strlen(fixed[i]));
	const char *lp = getenv("LD_LIBRARY_PATH");
	for (const char *p = lp && *lp ? lp : NULL; rc == 0 && p;) {
		size_t n = strcspn(p, ":"); /* an empty entry is the working directory */
		rc = n ? deps_add(d, p, n) : deps_add(d, ".", 1);
		p = p[n] ? p + n + 1 : NULL;
	}
	if (strstr(text, "not found"))
		return -1;
	for (const char *l = text; rc == 0 && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l), n = 0;
		const char *obj = line_object(l, len, &n);
		const char *slash = obj ? memrchr(obj, '/', n) : NULL;
		if (obj && n)
			rc = deps_add(d, obj, n);
		if (rc == 0 && slash)
			rc = slash == obj ? deps_add(d, "/", 1) : deps_add(d, obj, (size_t)(slash - obj));
		l = nl ? nl + 1 : l + len;
	}
	return rc;
}

static char *memo_file(const char *key)
{
	int no_home = 0;
	char *dir = cache_home_path("ldd", &no_home), hex[SHA256_HEX_SIZE];
	sha256_hex(key, strlen(key), hex);
	char *file = dir ? xasprintf("%s/%.40s", dir, hex) : NULL;
	xfree(dir);
	return file;
}

/* Every "dep" line still true, up to the "text" line: returns the text after
 * it, else NULL. */
static const char *deps_hold(const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		if (nl - p == 4 && memcmp(p, "text", 4) == 0)
			return nl + 1;
		const char *tab = memchr(p, '\t', (size_t)(nl - p));
		if (nl - p < 5 || memcmp(p, "dep ", 4) != 0 || !tab)
			return NULL;
		char *path = xstrndup(p + 4, (size_t)(tab - p - 4)), id[ID_SIZE];
		if (!path)
			return NULL;
		identity(path, id, NULL);
		xfree(path);
		if (strlen(id) != (size_t)(nl - tab - 1) || memcmp(id, tab + 1, strlen(id)) != 0)
			return NULL; /* changed since: a miss */
		p = nl + 1;
	}
	return NULL;
}

/* The kept text for key when sealed by us and every file it depends on is
 * unchanged, else NULL. */
static char *lookup(const char *file, const char *key, const uint8_t sk[CACHE_SEAL_KEY_SIZE])
{
	char *data = NULL, seal[SHA256_HEX_SIZE], *text = NULL;
	size_t n = 0, ml = strlen(MEMO_MAGIC), kl = strlen(key);
	if (safefs_read_owned(file, MEMO_MAX, &data, &n) != 0)
		return NULL;
	const char *body = data + ml + SHA256_HEX_SIZE, *end = data + n;
	if (n > ml + SHA256_HEX_SIZE && memcmp(data, MEMO_MAGIC, ml) == 0 &&
	    data[ml + SHA256_HEX_SIZE - 1] == '\n') {
		cache_seal_with(sk, MEMO_MAGIC, ml, body, (size_t)(end - body), seal);
		const char *t = NULL;
		if (memcmp(seal, data + ml, SHA256_HEX_SIZE - 1) == 0 &&
		    (size_t)(end - body) > kl + 5 && memcmp(body, "key ", 4) == 0 &&
		    memcmp(body + 4, key, kl) == 0 && body[4 + kl] == '\n' &&
		    (t = deps_hold(body + 5 + kl, end)))
			text = xstrndup(t, (size_t)(end - t));
	}
	xfree(data);
	return text;
}

/* Keeps text under key, unless a file it depends on changed too recently
 * to be told apart from a change still to come. Best effort. */
static void store(const char *file, const char *key, const uint8_t sk[CACHE_SEAL_KEY_SIZE],
		  const struct deps *d, const char *text)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec, newest = 0;
	char *body = xasprintf("key %s\n", key), id[ID_SIZE], seal[SHA256_HEX_SIZE];
	for (size_t i = 0; body && i < d->n; i++) {
		identity(d->v[i], id, &newest);
		char *more = newest + MEMO_RACY_NS > now ? NULL
			      : xasprintf("%sdep %s\t%s\n", body, d->v[i], id);
		xfree(body);
		body = more;
	}
	char *all = body ? xasprintf("%stext\n%s", body, text) : NULL;
	if (all) {
		size_t ml = strlen(MEMO_MAGIC), bl = strlen(all);
		cache_seal_with(sk, MEMO_MAGIC, ml, all, bl, seal);
		char *entry = xasprintf("%s%s\n%s", MEMO_MAGIC, seal, all);
		if (entry)
			(void)fs_write_cache(file, entry, strlen(entry), 0600);
		xfree(entry);
	}
	xfree(all);
	xfree(body);
}

/* ldd through the execution boundary: its two outputs as one text, or NULL
 * when it could not start; *ok when it answered (exit 0). */
static char *run_ldd(struct executor *x, const char *path, bool *ok)
{
	const char *argv[] = {"ldd", path, NULL};
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 120};
	struct exec_result r = {0};
	struct err e = {0};
	char *text = NULL;
	*ok = false;
	if (executor__run(x, &rq, &r, &e) == 0 && r.exit_code != EXEC_NOT_FOUND) {
		text = xasprintf("%s\n%s", r.out ? r.out : "", r.err ? r.err : "");
		*ok = r.exit_code == 0 && !r.timed_out && r.out && *r.out;
	}
	exec_result__release(&r);
	return text;
}

char *ldd_memo_run(struct executor *x, const char *path, bool memo)
{
	uint8_t sk[CACHE_SEAL_KEY_SIZE];
	char *key = memo && path ? memo_key(path) : NULL;
	char *file = key && cache_seal_key(sk) == 0 ? memo_file(key) : NULL;
	char *text = file ? lookup(file, key, sk) : NULL;
	if (!text) {
		bool ok = false;
		text = run_ldd(x, path, &ok);
		struct deps d = {0};
		if (ok && file && collect_deps(&d, path, text) == 0)
			store(file, key, sk, &d, text);
		deps__release(&d);
	}
	xfree(file);
	xfree(key);
	return text;
}
