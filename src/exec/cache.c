// SPDX-License-Identifier: BSD-3-Clause
/*
 * The caching executor: a tool call whose answer is a function of its argv,
 * stdin, environment edits and the files its argv names (a symbolizer over
 * one module, `readelf -S lib`, `perf --version`) is answered from
 * $XDG_CACHE_HOME/nunatak/exec/ when the same call was made before on the
 * same files. Each starts a process whose loading alone (libLLVM's
 * relocations) costs tens of milliseconds: a Run that re-profiles the same
 * binaries and libraries skips them.
 *
 * A file named on argv enters the key by identity (device, inode, size,
 * mtime in ns), so a rebuilt module or an upgraded tool misses; so do the
 * libraries LD_LIBRARY_PATH or LD_PRELOAD load into the tool instead of its
 * own (exec/tool_identity.c; nothing when they redirect none). Only calls
 * the caller marks `cacheable` are looked up, only successful ones (exit 0,
 * not timed out) are stored, entries carry their whole key and are checked
 * against it on read. Never used under recording or replay: the recording
 * must hold every call, the replay serves its own.
 */
#include "exec/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "common/hashtab.h"
#include "common/safefs.h"
#include "common/sha256.h"
#include "exec/exec_internal.h"
#include "exec/tool_identity.h"

#define CACHE_MAGIC "nunatak-exec-cache 2\n"
#define CACHE_MAX_OUT (8u << 20) /* larger answers are not kept */
#define CACHE_MAX_FILE (256u << 20) /* a lines file grows by appends */

struct cache {
	struct executor *inner;
	char *dir;
	uint8_t key[CACHE_SEAL_KEY_SIZE]; /* seals every entry (common/cache_home.h) */
	signed char accel; /* the CPU's SHA instructions: -1 not asked yet */
	struct tool_env_memo libs; /* the tools' redirected libraries (request_key) */
};

/* Appends s (len bytes) to the growing key buffer. */
static int key_add(char **k, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (xgrow((void **)k, cap, *len + n + 2, 1) < 0)
		return -ENOMEM;
	memcpy(*k + *len, s, n);
	*len += n;
	(*k)[(*len)++] = '\0';
	return 0;
}

/* The identity of an absolute path naming a regular file ("" otherwise). */
static void file_identity(const char *word, char *out, size_t cap)
{
	const char *eq = word[0] == '-' ? strchr(word, '=') : NULL;
	const char *path = eq ? eq + 1 : word;
	struct stat st;
	out[0] = '\0';
	if (path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(out, cap, "@%ju:%ju:%jd:%jd.%09ld", (uintmax_t)st.st_dev,
			 (uintmax_t)st.st_ino, (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec);
}

/* The whole key of a request: the program's identity, argv with the
 * identity of every file it names, env edits, cwd, salt and stdin. */
static char *request_key(struct cache *c, const struct exec_request *req, size_t *len)
{
	char *k = NULL, id[128];
	size_t cap = 0;
	*len = 0;
	char *prog = NULL;
	int rc = exec_which(req->argv[0], &prog);
	file_identity(rc == 0 ? prog : "", id, sizeof(id));
	char *libs = NULL; /* what LD_LIBRARY_PATH/LD_PRELOAD load in (tool_identity.h) */
	if (id[0] && tool_env_identity(&c->libs, prog, req, &libs) < 0)
		id[0] = '\0';
	xfree(prog);
	if (!id[0]) /* a program we cannot identify is never cached */
		return NULL;
	rc = key_add(&k, len, &cap, id, strlen(id));
	if (rc == 0 && libs) /* absent when nothing is redirected: the key is unchanged */
		rc = key_add(&k, len, &cap, libs, strlen(libs));
	xfree(libs);
	const char *const *argv = req->cache_argv ? req->cache_argv : req->argv;
	for (size_t i = 0; rc == 0 && argv[i]; i++) {
		file_identity(argv[i], id, sizeof(id));
		rc = key_add(&k, len, &cap, argv[i], strlen(argv[i]));
		if (rc == 0 && id[0])
			rc = key_add(&k, len, &cap, id, strlen(id));
	}
	for (size_t i = 0; rc == 0 && req->env_set && req->env_set[i]; i++)
		rc = key_add(&k, len, &cap, req->env_set[i], strlen(req->env_set[i]));
	for (size_t i = 0; rc == 0 && req->env_unset && req->env_unset[i]; i++)
		rc = key_add(&k, len, &cap, req->env_unset[i], strlen(req->env_unset[i]));
	const char *cwd = req->cwd ? req->cwd : "";
	if (rc == 0)
		rc = key_add(&k, len, &cap, cwd, strlen(cwd));
	const char *salt = req->cache_salt ? req->cache_salt : "";
	if (rc == 0)
		rc = key_add(&k, len, &cap, salt, strlen(salt));
	if (rc == 0)
		rc = key_add(&k, len, &cap, req->stdin_data ? req->stdin_data : "", req->stdin_len);
	if (rc < 0) {
		xfree(k);
		return NULL;
	}
	return k;
}

static bool cacheable(const struct exec_request *req)
{
	return req->cacheable && !req->application && !req->forward_signals &&
	       !req->stdout_path && !req->output_path && req->argv && req->argv[0];
}

static char *entry_path(const struct cache *c, const char *key, size_t len)
{
	char hex[SHA256_HEX_SIZE];
	sha256_hex(key, len, hex);
	return xasprintf("%s/%.2s/%s", c->dir, hex, hex + 2);
}

/* Entry: magic, "<key len> <exit> <out len> <err len> <seal>\n", key, out,
 * err; the seal covers the numbers and the rest (an entry nunatak did not
 * write is a miss), and the file must be ours (common/safefs.h). */
static bool lookup(const struct cache *c, const char *key, size_t klen, struct exec_result *res)
{
	char *path = entry_path(c, key, klen), *data = NULL;
	size_t n = 0;
	bool hit = false;
	if (path && safefs_read_owned(path, CACHE_MAX_FILE, &data, &n) == 0 &&
	    n > strlen(CACHE_MAGIC) && memcmp(data, CACHE_MAGIC, strlen(CACHE_MAGIC)) == 0) {
		const char *p = data + strlen(CACHE_MAGIC), *nl = memchr(p, '\n', n - (size_t)(p - data));
		size_t kl, ol, el;
		int code;
		char seal[SHA256_HEX_SIZE], want[SHA256_HEX_SIZE], nums[96];
		if (nl && sscanf(p, "%zu %d %zu %zu %64s", &kl, &code, &ol, &el, seal) == 5 &&
		    kl == klen && (size_t)(data + n - (nl + 1)) == kl + ol + el &&
		    memcmp(nl + 1, key, kl) == 0) {
			int nn = snprintf(nums, sizeof(nums), "%zu %d %zu %zu", kl, code, ol, el);
			cache_seal_with(c->key, nums, (size_t)nn, nl + 1, kl + ol + el, want);
			if (strcmp(seal, want) != 0)
				goto out;
			const char *o = nl + 1 + kl;
			res->out = xmalloc(ol + 1);
			res->err = xmalloc(el + 1);
			if (res->out && res->err) {
				memcpy(res->out, o, ol);
				res->out[ol] = '\0';
				memcpy(res->err, o + ol, el);
				res->err[el] = '\0';
				res->out_len = ol;
				res->err_len = el;
				res->exit_code = code;
				hit = true;
			}
			else
				exec_result__release(res);
		}
	}
out:
	xfree(data);
	xfree(path);
	return hit;
}

/* Best effort: a cache that cannot be written only costs the next Run time. */
static void store(const struct cache *c, const char *key, size_t klen, bool salted,
		  const struct exec_result *res)
{
	/* a salted call names the state its failure depends on: kept too */
	if ((res->exit_code != 0 && !salted) || res->timed_out || res->term_signal ||
	    res->out_len + res->err_len > CACHE_MAX_OUT)
		return;
	char *path = entry_path(c, key, klen);
	char head[192], nums[96], seal[SHA256_HEX_SIZE];
	int nn = snprintf(nums, sizeof(nums), "%zu %d %zu %zu", klen, res->exit_code,
			  res->out_len, res->err_len);
	size_t body = klen + res->out_len + res->err_len;
	char *buf = xmalloc(sizeof(head) + body);
	if (buf && path) {
		char *b = buf + sizeof(head);
		memcpy(b, key, klen);
		if (res->out_len)
			memcpy(b + klen, res->out, res->out_len);
		if (res->err_len)
			memcpy(b + klen + res->out_len, res->err, res->err_len);
		cache_seal_with(c->key, nums, (size_t)nn, b, body, seal);
		int hl = snprintf(head, sizeof(head), "%s%s %s\n", CACHE_MAGIC, nums, seal);
		memcpy(b - hl, head, (size_t)hl);
		(void)fs_write_cache(path, b - hl, (size_t)hl + body, 0600);
	}
	xfree(buf);
	xfree(path);
}

/*
 * Per-line calls (`cache_per_line`): stdin holds one item a line and stdout
 * answers one line per item, in order (llvm-symbolizer --output-style=JSON
 * over addresses). Each item's line is kept under the call's key without
 * stdin, so a later call over other addresses of the same module runs on
 * the missing ones only. File: "<magic><key len>\n<key>", then records
 * "<item>\t<line>\n" appended; a torn last record is ignored.
 */
#define LINES_MAGIC "nunatak-exec-lines 2\n"
/* Each record is "<seal>\t<item>\t<line>\n", the seal covering the call's
 * key and "<item>\t<line>": a record nunatak did not append is skipped. */
#define REC_SEAL (SHA256_HEX_SIZE - 1)

struct lines_map {
	char *data;        /* the file, records point into it */
	struct strtab items;
	const char **line; /* by item id */
	size_t *len, cap;
	const char **seal; /* by item id: its record (the seal, then the body) */
	signed char *ok;   /* by item id: the seal checked, 1 holds, -1 not ours, 0 not yet */
};

static void lines_map__release(struct lines_map *m)
{
	strtab__release(&m->items);
	xfree(m->line);
	xfree(m->len);
	xfree(m->seal);
	xfree(m->ok);
	xfree(m->data);
	memset(m, 0, sizeof(*m));
}

static int lines_map__grow(struct lines_map *m)
{
	size_t cap = m->items.cap;
	const char **nl = xrealloc(m->line, cap * sizeof(*nl));
	if (nl)
		m->line = nl;
	size_t *nn = nl ? xrealloc(m->len, cap * sizeof(*nn)) : NULL;
	if (nn)
		m->len = nn;
	const char **ns = nn ? xrealloc(m->seal, cap * sizeof(*ns)) : NULL;
	if (ns)
		m->seal = ns;
	signed char *no = ns ? xrealloc(m->ok, cap * sizeof(*no)) : NULL;
	if (!no)
		return -ENOMEM;
	m->ok = no;
	m->cap = cap;
	return 0;
}

/* The first record of an item is kept; ok: its seal already checked. */
static int lines_map__put(struct lines_map *m, const char *item, size_t il, const char *line,
			  size_t ll, const char *seal, bool ok)
{
	bool added = false;
	int64_t id = strtab__intern(&m->items, item, il, &added);
	if (id < 0)
		return (int)id;
	if (!added)
		return 0;
	if (m->cap < m->items.cap && lines_map__grow(m) < 0)
		return -ENOMEM;
	m->line[id] = line;
	m->len[id] = ll;
	m->seal[id] = seal;
	m->ok[id] = ok ? 1 : 0;
	return 0;
}

/* Whether the record kept for each of the n items found in m is one
 * nunatak appended (its seal checked once, here, not at load). */
static bool lines_map__verify(struct lines_map *m, const struct cache_sealer *sealer,
			      const char *const *item, const size_t *item_len, size_t n)
{
	bool all = true;
	for (size_t i = 0; i < n; i++) {
		int64_t id = strtab__find(&m->items, item[i], item_len[i]);
		if (id < 0 || m->ok[id])
			all = all && (id < 0 || m->ok[id] > 0);
		else {
			char want[SHA256_HEX_SIZE];
			const char *body = m->seal[id] + REC_SEAL + 1;
			cache_sealer__seal(sealer, body, (size_t)(m->line[id] + m->len[id] - body), want);
			m->ok[id] = memcmp(m->seal[id], want, REC_SEAL) == 0 ? 1 : -1;
			all = all && m->ok[id] > 0;
		}
	}
	return all;
}

/* Records of a file this large are checked with the CPU's SHA
 * instructions, asked once per cache (a CPUID costs ~17-30 us in a VM). */
#define LINES_ACCEL_MIN 4096

/* Loads the records of path when its header holds exactly key. Every
 * record's seal starts with the same key: the HMAC state after it is
 * computed once into sealer (cache_sealer), ~40% of each record's hashing.
 * Checked: every seal now, a record that is not ours skipped; else each
 * item's first record, its seal checked when the item is asked
 * (lines_map__verify; a Run asks tens of a file's hundreds). False when
 * sealer was left as is (no file, or not this key's). */
static bool lines_map__load(struct lines_map *m, struct cache *c, struct cache_sealer *sealer,
			    const char *path, const char *key, size_t klen, bool checked)
{
	size_t n = 0;
	if (safefs_read_owned(path, CACHE_MAX_FILE, &m->data, &n) != 0)
		return false;
	size_t ml = strlen(LINES_MAGIC);
	char *p = m->data, *end = m->data + n, *nl;
	size_t kl = 0;
	if (n < ml || memcmp(p, LINES_MAGIC, ml) != 0 || sscanf(p + ml, "%zu", &kl) != 1 ||
	    kl != klen || !(nl = memchr(p + ml, '\n', n - ml)) || (size_t)(end - nl - 1) < kl ||
	    memcmp(nl + 1, key, kl) != 0) {
		(void)unlink(path); /* damaged (or another key's): made anew */
		return false;
	}
	if (c->accel < 0 && n >= LINES_ACCEL_MIN)
		c->accel = sha256_accel_available();
	cache_sealer__init(sealer, c->key, key, klen, c->accel);
	for (p = nl + 1 + kl; p < end;) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			break; /* torn by a concurrent or killed writer */
		char want[SHA256_HEX_SIZE];
		char *rec = p + REC_SEAL + 1;
		bool sealed = eol - p > REC_SEAL && p[REC_SEAL] == '\t';
		if (sealed && checked) {
			cache_sealer__seal(sealer, rec, (size_t)(eol - rec), want);
			sealed = memcmp(p, want, REC_SEAL) == 0;
		}
		char *tab = sealed ? memchr(rec, '\t', (size_t)(eol - rec)) : NULL;
		if (tab && lines_map__put(m, rec, (size_t)(tab - rec), tab + 1,
					  (size_t)(eol - tab - 1), p, checked) < 0)
			break;
		p = eol + 1;
	}
	return true;
}

/* Creates the file with its header (atomically), then appends records. */
static void lines_append(const char *path, const char *key, size_t klen, const char *rec,
			 size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		char head[64];
		int hl = snprintf(head, sizeof(head), "%s%zu\n", LINES_MAGIC, klen);
		char *buf = xmalloc((size_t)hl + klen);
		if (buf) {
			memcpy(buf, head, (size_t)hl);
			memcpy(buf + hl, key, klen);
			(void)fs_write_cache(path, buf, (size_t)hl + klen, 0600);
		}
		xfree(buf);
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat fst;
	if (fstat(fd, &fst) == 0 && !safefs_untrusted_why(&fst) && S_ISREG(fst.st_mode))
		(void)!write(fd, rec, len);
	close(fd);
}

/* One request's plan: answered from the cache, or what to run instead. */
struct plan {
	char *key;
	size_t klen;
	bool lines;
	char *path;              /* lines file */
	struct lines_map map;
	const char **item;       /* the request's items (into items_buf) */
	size_t *item_len, nr_items;
	char *items_buf;
	char *miss_in;           /* stdin of the misses */
	size_t nr_miss;
	struct exec_request run; /* what goes to the inner executor */
	bool hit;
	struct cache_sealer sealer; /* the file's records' (appended ones too) */
};

static void plan__release(struct plan *p)
{
	xfree(p->key);
	xfree(p->path);
	lines_map__release(&p->map);
	xfree(p->item);
	xfree(p->item_len);
	xfree(p->items_buf);
	xfree(p->miss_in);
}

static int split_items(struct plan *p, const char *in, size_t len)
{
	size_t cap = 1;
	for (size_t i = 0; i < len; i++)
		cap += in[i] == '\n';
	p->items_buf = xmalloc(len + 1);
	p->item = xcalloc(cap, sizeof(*p->item));
	p->item_len = xcalloc(cap, sizeof(*p->item_len));
	if (!p->items_buf || !p->item || !p->item_len)
		return -ENOMEM;
	memcpy(p->items_buf, in, len);
	p->items_buf[len] = '\0';
	for (char *s = p->items_buf, *end = s + len; s < end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (l) {
			p->item[p->nr_items] = s;
			p->item_len[p->nr_items++] = l;
		}
		s += l + 1;
	}
	return 0;
}

/* Fills res from the map when every item is known; else the misses' stdin. */
static int plan_lines(struct cache *c, struct plan *p, struct exec_result *res)
{
	size_t need = 0, out = 0;
	int rc = split_items(p, p->run.stdin_data, p->run.stdin_len);
	if (rc == 0 && !lines_map__verify(&p->map, &p->sealer, p->item, p->item_len, p->nr_items)) {
		/* a record nunatak did not append: the file read again with every
		 * seal checked, so that only ours are kept (the first of each item) */
		lines_map__release(&p->map);
		(void)lines_map__load(&p->map, c, &p->sealer, p->path, p->key, p->klen, true);
	}
	for (size_t i = 0; rc == 0 && i < p->nr_items; i++) {
		int64_t id = strtab__find(&p->map.items, p->item[i], p->item_len[i]);
		if (id < 0) {
			p->nr_miss++;
			need += p->item_len[i] + 1;
		}
		else
			out += p->map.len[id] + 1;
	}
	if (rc < 0)
		return rc;
	if (!p->nr_items) { /* nothing to key item by item: not cached */
		xfree(p->key);
		p->key = NULL;
		return 0;
	}
	if (p->nr_miss) {
		if (!(p->miss_in = xmalloc(need + 1)))
			return -ENOMEM;
		size_t k = 0;
		for (size_t i = 0; i < p->nr_items; i++) {
			if (strtab__find(&p->map.items, p->item[i], p->item_len[i]) >= 0)
				continue;
			memcpy(p->miss_in + k, p->item[i], p->item_len[i]);
			k += p->item_len[i];
			p->miss_in[k++] = '\n';
		}
		p->run.stdin_data = p->miss_in;
		p->run.stdin_len = k;
		return 0;
	}
	if (!(res->out = xmalloc(out + 1)) || !(res->err = xstrdup("")))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_items; i++) {
		int64_t id = strtab__find(&p->map.items, p->item[i], p->item_len[i]);
		memcpy(res->out + res->out_len, p->map.line[id], p->map.len[id]);
		res->out_len += p->map.len[id];
		res->out[res->out_len++] = '\n';
	}
	res->out[res->out_len] = '\0';
	p->hit = true;
	return 0;
}

static int plan__init(struct cache *c, struct plan *p, const struct exec_request *req,
		      struct exec_result *res)
{
	memset(p, 0, sizeof(*p));
	p->run = *req;
	if (!cacheable(req))
		return 0;
	p->lines = req->cache_per_line && req->stdin_data;
	struct exec_request keyed = *req;
	if (p->lines) { /* the items are keyed one by one */
		keyed.stdin_data = "\n";
		keyed.stdin_len = 1;
	}
	if (!(p->key = request_key(c, &keyed, &p->klen)))
		return 0;
	if (!p->lines) {
		p->hit = lookup(c, p->key, p->klen, res);
		return 0;
	}
	char hex[SHA256_HEX_SIZE];
	sha256_hex(p->key, p->klen, hex);
	if (!(p->path = xasprintf("%s/lines/%.2s/%s", c->dir, hex, hex + 2)))
		return -ENOMEM;
	if (!lines_map__load(&p->map, c, &p->sealer, p->path, p->key, p->klen, false))
		cache_sealer__init(&p->sealer, c->key, p->key, p->klen, c->accel);
	return plan_lines(c, p, res);
}

/* The misses' answer (one line each, in the misses' order) joins the cached
 * lines into r, in the items' order, and its lines are appended to the file.
 * False when it does not hold exactly one line per miss: r is left as is. */
static bool plan_merge(struct plan *p, struct exec_result *r)
{
	const char **l = xcalloc(p->nr_miss, sizeof(*l));
	size_t *ll = xcalloc(p->nr_miss, sizeof(*ll)), k = 0;
	bool ok = l && ll && r->exit_code == 0 && !r->timed_out && !r->term_signal;
	for (const char *s = r->out ? r->out : "", *end = s + r->out_len; ok && s < end; k++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		ok = k < p->nr_miss && !memchr(s, '\t', n);
		if (ok) {
			l[k] = s;
			ll[k] = n;
		}
		s += n + 1;
	}
	ok = ok && k == p->nr_miss;
	size_t outlen = 0, reclen = 0, m = 0;
	for (size_t i = 0; ok && i < p->nr_items; i++) {
		int64_t id = strtab__find(&p->map.items, p->item[i], p->item_len[i]);
		if (id >= 0) {
			outlen += p->map.len[id] + 1;
			continue;
		}
		outlen += ll[m] + 1;
		reclen += REC_SEAL + 1 + p->item_len[i] + ll[m] + 2;
		m++;
	}
	char *out = ok ? xmalloc(outlen + 1) : NULL, *recs = ok ? xmalloc(reclen + 1) : NULL;
	ok = ok && out && recs;
	size_t ol = 0, rl = 0;
	m = 0;
	for (size_t i = 0; ok && i < p->nr_items; i++) {
		int64_t id = strtab__find(&p->map.items, p->item[i], p->item_len[i]);
		const char *line = id >= 0 ? p->map.line[id] : l[m];
		size_t n = id >= 0 ? p->map.len[id] : ll[m];
		memcpy(out + ol, line, n);
		ol += n;
		out[ol++] = '\n';
		if (id >= 0)
			continue;
		m++;
		size_t seal_at = rl, body = rl + REC_SEAL + 1;
		rl = body;
		memcpy(recs + rl, p->item[i], p->item_len[i]);
		rl += p->item_len[i];
		recs[rl++] = '\t';
		memcpy(recs + rl, line, n);
		rl += n;
		char seal[SHA256_HEX_SIZE];
		cache_sealer__seal(&p->sealer, recs + body, rl - body, seal);
		memcpy(recs + seal_at, seal, REC_SEAL);
		recs[seal_at + REC_SEAL] = '\t';
		recs[rl++] = '\n';
	}
	if (ok) {
		out[ol] = '\0';
		lines_append(p->path, p->key, p->klen, recs, rl);
		xfree(r->out);
		r->out = out;
		r->out_len = ol;
		out = NULL;
	}
	xfree(out);
	xfree(recs);
	xfree(l);
	xfree(ll);
	return ok;
}

/* Hits are answered at once; the misses (whole calls, or the missing items
 * of per-line calls) go to the inner batch together. */
static int cache_run_batch(struct executor *x, const struct exec_request *reqs, size_t n,
			   struct exec_result *res, struct err *e)
{
	struct cache *c = x->priv;
	size_t w = n ? n : 1, m = 0;
	struct plan *plan = xcalloc(w, sizeof(*plan));
	struct exec_request *miss = xcalloc(w, sizeof(*miss));
	struct exec_result *mres = xcalloc(w, sizeof(*mres));
	size_t *at = xcalloc(w, sizeof(*at));
	int rc = plan && miss && mres && at ? 0 : err_oom(e);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		if (plan__init(c, &plan[i], &reqs[i], &res[i]) < 0)
			rc = err_oom(e);
		else if (!plan[i].hit) {
			exec_result__release(&res[i]);
			miss[m] = plan[i].run;
			at[m++] = i;
		}
	}
	if (rc == 0 && m)
		rc = executor__run_batch(c->inner, miss, m, mres, e);
	for (size_t j = 0; j < m; j++) {
		size_t i = at[j];
		res[i] = mres[j]; /* moved: released by the caller */
		if (rc != 0 || !plan[i].key)
			continue;
		if (!plan[i].lines)
			store(c, plan[i].key, plan[i].klen, reqs[i].cache_salt != NULL, &res[i]);
		else if (!plan_merge(&plan[i], &res[i])) { /* not one line per item: run it whole */
			exec_result__release(&res[i]);
			rc = executor__run(c->inner, &reqs[i], &res[i], e);
		}
	}
	for (size_t i = 0; plan && i < n; i++)
		plan__release(&plan[i]);
	xfree(plan);
	xfree(miss);
	xfree(mres);
	xfree(at);
	return rc;
}

static int cache_run(struct executor *x, const struct exec_request *req, struct exec_result *res,
		     struct err *e)
{
	struct cache *c = x->priv;
	if (!cacheable(req))
		return executor__run(c->inner, req, res, e);
	return cache_run_batch(x, req, 1, res, e);
}

static const json_t *cache_meta(struct executor *x)
{
	struct cache *c = x->priv;
	return executor__recorded_meta(c->inner);
}

static void cache_free(struct executor *x)
{
	struct cache *c = x->priv;
	executor__free(c->inner);
	tool_env_memo__release(&c->libs);
	xfree(c->dir);
	xfree(c);
	xfree(x);
}

static const struct executor_ops cache_ops = {cache_run, cache_meta, cache_free,
					      cache_run_batch};

struct executor *executor__new_caching_take(struct executor *inner, const char *dir)
{
	if (!dir || !dir[0])
		return inner;
	struct executor *x = xcalloc(1, sizeof(*x));
	struct cache *c = xcalloc(1, sizeof(*c));
	char *d = xstrdup(dir);
	if (!x || !c || !d) {
		xfree(x);
		xfree(c);
		xfree(d);
		return inner; /* uncached, not failed */
	}
	if (cache_seal_key(c->key) != 0) { /* nothing could be trusted: uncached */
		xfree(x);
		xfree(c);
		xfree(d);
		return inner;
	}
	c->inner = inner;
	c->dir = d;
	c->accel = -1;
	x->ops = &cache_ops;
	x->priv = c;
	return x;
}
