// SPDX-License-Identifier: BSD-3-Clause
/*
 * Decompressed copies of separate debug files: see attrib/debug_copy.h.
 *
 * Layout under <cache>/debug (private, 0700):
 *   <build-id>.<key>/.build-id/xx/rest.debug   the copy, where LLVM's
 *                                                build-id lookup finds it
 *   <build-id>.<key>/seal                        HMAC of its identity
 *   <build-id>.<key>.seen                        the marker: "" met once,
 *                                                "plain" nothing to copy,
 *                                                "fail <n> <epoch s>" the copy
 *                                                failed n times, the last
 *                                                then (retried after
 *                                                debug_copy_retry_wait(n))
 * key: 16 hex digits of SHA-256 over the original's path and identity.
 *
 * Why llvm-objcopy and not an ELF rewrite of our own: a copy is made once
 * per debug file and machine, so its process start (~20 ms) is paid once;
 * the tool is LLVM's own reader and writer of the format the symbolizer of
 * the same install reads back, where a rewrite of section and program
 * headers by hand would be new code on which every later answer depends,
 * plus a zlib dependency. The copy goes through the execution boundary
 * like every other tool call.
 */
#include "attrib/debug_copy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/sha256.h"
#include "exec/exec.h"
#include "tools/locate.h"

#define DEFAULT_DIR "/usr/lib/debug" /* LLVM's, when no directory is given */
#define DIR_ARG "--debug-file-directory="
/* What the copies may take on disk, all together (libc6-dbg's libc: 11 MB
 * decompressed, ld.so 1 MB): a copy that would pass it is not made. */
#define COPIES_MAX_BYTES ((uint64_t)1 << 30)
#define SEAL_RECIPE "nunatak-debug-copy 1\n"
#define SHF_COMPRESSED_ 0x800u
#define ELFCOMPRESS_ZLIB_ 1u
#define SHT_NOBITS_ 8u

/* What a debug file's (or a module's) section headers say. */
struct scan {
	bool zlib;          /* a .debug_* section is zlib-compressed */
	bool other;         /* a .debug_* section compressed otherwise (zstd): left alone */
	bool debug;         /* a .debug_* section with contents */
	uint64_t inflated;  /* bytes the compressed sections grow by */
	bool has_crc;       /* .gnu_debuglink's CRC */
	uint32_t crc;
	char *link;         /* .gnu_debuglink's file name */
	bool debug_info;    /* .debug_info (or .zdebug_info) of its own */
	char *build_id;     /* .note.gnu.build-id, hex */
};

static void scan_release(struct scan *o)
{
	xfree(o->build_id);
	xfree(o->link);
	o->build_id = o->link = NULL;
}

static uint64_t rd(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

struct shdr {
	uint32_t name, type;
	uint64_t flags, offset, size;
};

static void shdr_of(const unsigned char *p, bool is64, struct shdr *s)
{
	s->name = (uint32_t)rd(p, 4);
	s->type = (uint32_t)rd(p + 4, 4);
	s->flags = is64 ? rd(p + 8, 8) : rd(p + 8, 4);
	s->offset = is64 ? rd(p + 24, 8) : rd(p + 16, 4);
	s->size = is64 ? rd(p + 32, 8) : rd(p + 20, 4);
}

/* One section of interest: a .debug_* one, .gnu_debuglink, the build-id. */
static void scan_one(int fd, bool is64, const struct shdr *s, const char *name, struct scan *o)
{
	unsigned char b[1024];
	if ((!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")) &&
	    s->type != SHT_NOBITS_)
		o->debug_info = true; /* as attrib/elf.h's has_debug_info */
	if (!strncmp(name, ".debug_", 7) && s->type != SHT_NOBITS_ && s->size) {
		o->debug = true;
		size_t ch = is64 ? 24 : 12;
		if (!(s->flags & SHF_COMPRESSED_))
			return;
		if (s->size < ch || !pread_all(fd, b, ch, s->offset)) {
			o->other = true;
			return;
		}
		uint64_t full = is64 ? rd(b + 8, 8) : rd(b + 4, 4);
		if (rd(b, 4) == ELFCOMPRESS_ZLIB_)
			o->zlib = true;
		else
			o->other = true;
		if (full > s->size)
			o->inflated += full - s->size;
	} else if (!strcmp(name, ".gnu_debuglink") && s->size >= 8 && s->size <= sizeof(b) &&
		   pread_all(fd, b, s->size, s->offset)) {
		size_t nl = strnlen((char *)b, s->size), at = (nl + 4) & ~(size_t)3;
		o->has_crc = at + 4 <= s->size;
		o->crc = o->has_crc ? (uint32_t)rd(b + at, 4) : 0;
		if (nl && nl < s->size && !o->link)
			o->link = xstrndup((char *)b, nl);
	} else if (!strcmp(name, ".note.gnu.build-id") && !o->build_id && s->size <= sizeof(b) &&
		   s->type != SHT_NOBITS_ && pread_all(fd, b, s->size, s->offset)) {
		o->build_id = elf_notes_build_id(b, s->size);
	}
}

/* Reads fd's section headers (little-endian ELF32/ELF64). 0 or -EINVAL. */
static int scan_fd(int fd, struct scan *o)
{
	unsigned char eh[64];
	memset(o, 0, sizeof(*o));
	if (!pread_all(fd, eh, sizeof(eh), 0) || memcmp(eh, "\177ELF", 4) || eh[5] != 1 ||
	    (eh[4] != 1 && eh[4] != 2))
		return -EINVAL;
	bool is64 = eh[4] == 2;
	uint64_t shoff = is64 ? rd(eh + 40, 8) : rd(eh + 32, 4);
	size_t esz = (size_t)rd(eh + (is64 ? 58 : 46), 2), num = (size_t)rd(eh + (is64 ? 60 : 48), 2);
	size_t strndx = (size_t)rd(eh + (is64 ? 62 : 50), 2);
	if (esz < (is64 ? 64u : 40u) || esz > 256 || num == 0 || num > 4096 || strndx >= num)
		return -EINVAL; /* (extended numbering: no debug file of ours needs it) */
	unsigned char *sh = xmalloc(esz * num);
	char *names = NULL;
	int rc = sh && pread_all(fd, sh, esz * num, shoff) ? 0 : -EINVAL;
	struct shdr str;
	if (!rc) {
		shdr_of(sh + esz * strndx, is64, &str);
		names = str.size && str.size < (1u << 20) ? xmalloc(str.size + 1) : NULL;
		rc = names && pread_all(fd, names, str.size, str.offset) ? 0 : -EINVAL;
	}
	for (size_t i = 1; !rc && i < num; i++) {
		struct shdr s;
		shdr_of(sh + esz * i, is64, &s);
		if (s.name < str.size) {
			names[str.size] = '\0';
			scan_one(fd, is64, &s, names + s.name, o);
		}
	}
	xfree(sh);
	xfree(names);
	return rc;
}

int debug_copy_scan(int fd, char **build_id)
{
	struct scan s;
	int rc = scan_fd(fd, &s);
	*build_id = s.build_id;
	xfree(s.link);
	return rc ? rc : s.zlib;
}

static int scan_path(const char *path, struct scan *o)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	memset(o, 0, sizeof(*o));
	if (fd < 0)
		return -errno;
	int rc = scan_fd(fd, o);
	close(fd);
	return rc;
}

/* The CRC-32 of .gnu_debuglink (IEEE, reflected, as zlib's crc32). */
static bool file_crc(const char *path, uint32_t *out)
{
	uint32_t table[256];
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	unsigned char *buf = fd >= 0 ? xmalloc(1 << 20) : NULL;
	uint32_t crc = 0xFFFFFFFFu;
	ssize_t r = -1;
	while (buf && ((r = read(fd, buf, 1 << 20)) > 0 || (r < 0 && errno == EINTR)))
		for (ssize_t i = 0; i < r; i++)
			crc = table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
	if (fd >= 0)
		close(fd);
	xfree(buf);
	*out = ~crc;
	return r == 0;
}

static bool regular(const char *path, struct stat *st)
{
	return stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/*
 * The debug file llvm-symbolizer reads for a module, in LLVM's order
 * (Symbolize.cpp, 14 to 19): the build-id's file under /usr/lib/debug, then
 * the .gnu_debuglink name beside the module, in its .debug/, and under
 * /usr/lib/debug/<the module's directory> (the first whose CRC matches:
 * checked when the copy is made). With debuginfod in play it comes between
 * the two, so only a build-id file is taken then. *path malloc'd.
 */
char *debug_file_by_build_id(const char *id)
{
	return id && strlen(id) > 2 ? xasprintf(DEFAULT_DIR "/.build-id/%.2s/%s.debug", id, id + 2)
				    : NULL;
}

size_t debug_files_by_link(const char *module, const char *link, char *out[3])
{
	const char *slash = module ? strrchr(module, '/') : NULL;
	if (!link || !slash)
		return 0;
	int dl = (int)(slash - module);
	out[0] = xasprintf("%.*s/%s", dl, module, link);
	out[1] = xasprintf("%.*s/.debug/%s", dl, module, link);
	out[2] = xasprintf(DEFAULT_DIR "%.*s/%s", dl, module, link);
	return 3;
}

static bool locate(const char *module, const char *id, const char *link, bool debuginfod,
		   char **path, struct stat *st, bool *by_link)
{
	*by_link = false;
	*path = debug_file_by_build_id(id);
	if (*path && regular(*path, st))
		return true;
	xfree(*path);
	*path = NULL;
	char *c[3] = {NULL, NULL, NULL};
	size_t n = debuginfod || (link && strchr(link, '/')) ? 0
		   : debug_files_by_link(module, link, c);
	for (size_t i = 0; i < n; i++) {
		if (!*path && c[i] && regular(c[i], st)) {
			*path = c[i];
			*by_link = true;
		} else {
			xfree(c[i]);
		}
	}
	return *path != NULL;
}

static void identity(const struct stat *st, char *out, size_t cap)
{
	snprintf(out, cap, "%ju:%ju:%jd:%jd.%09ld", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino,
		 (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
}

/* A directory or file of the cache that nunatak made: ours, no symlink. */
static bool ours(const char *path, bool dir, struct stat *st)
{
	return lstat(path, st) == 0 && (dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode)) &&
	       st->st_uid == geteuid() && !safefs_untrusted_why(st);
}

static char *copy_path(const char *dir, const char *name, const char *id)
{
	return xasprintf("%s/%s/.build-id/%.2s/%s.debug", dir, name, id, id + 2);
}

/* Whether <dir>/<name> holds the sealed copy nunatak made. */
static bool usable(const struct debug_copies *dc, const char *name, const char *id)
{
	char *p[4] = {xasprintf("%s/%s", dc->dir, name), xasprintf("%s/%s/.build-id", dc->dir, name),
		      xasprintf("%s/%s/.build-id/%.2s", dc->dir, name, id),
		      copy_path(dc->dir, name, id)};
	char *seal_path = xasprintf("%s/%s/seal", dc->dir, name), *seal = NULL;
	struct stat st;
	bool ok = p[0] && p[1] && p[2] && p[3] && seal_path;
	for (int i = 0; ok && i < 4; i++)
		ok = ours(p[i], i < 3, &st);
	size_t n = 0;
	if (ok && safefs_read_owned(seal_path, 8192, &seal, &n) == 0 && n >= SHA256_HEX_SIZE - 1) {
		char want[SHA256_HEX_SIZE], idn[128], recipe[256];
		identity(&st, idn, sizeof(idn));
		int rl = snprintf(recipe, sizeof(recipe), SEAL_RECIPE "%s\n", name);
		cache_seal_with(dc->key, recipe, (size_t)rl, idn, strlen(idn), want);
		ok = memcmp(seal, want, SHA256_HEX_SIZE - 1) == 0;
	} else {
		ok = false;
	}
	for (int i = 0; i < 4; i++)
		xfree(p[i]);
	xfree(seal_path);
	xfree(seal);
	return ok;
}

int debug_copies__init(struct debug_copies *dc, const char *dir, const char *symbolizer)
{
	memset(dc, 0, sizeof(*dc));
	const char *opts = getenv("LLVM_SYMBOLIZER_OPTS");
	if (!dir || !*dir || !symbolizer || (opts && *opts) || cache_seal_key(dc->key) != 0)
		return 0;
	dc->dir = xstrdup(dir);
	dc->objcopy = attrib_sibling(symbolizer, "llvm-objcopy");
	dc->now = time(NULL);
	if (!dc->dir || !dc->objcopy) {
		debug_copies__release(dc);
		return -ENOMEM;
	}
	return 0;
}

/* One line for -v (best effort: a note that cannot be kept is not said). */
__attribute__((format(printf, 2, 3))) static void note(struct debug_copies *dc,
							const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = NULL;
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	char **v = line ? xrealloc(dc->notes, (dc->nr_notes + 2) * sizeof(*v)) : NULL;
	if (!v) {
		free(line);
		return;
	}
	dc->notes = v;
	v[dc->nr_notes++] = line;
	v[dc->nr_notes] = NULL;
}

static struct debug_copy_met *met_find(const struct debug_copies *dc, const char *name)
{
	for (size_t i = 0; i < dc->nr_met; i++)
		if (!strcmp(dc->met[i].name, name))
			return &dc->met[i];
	return NULL;
}

/* Remembers name as met this Run (arg_take: its usable copy's argument). */
static int met_add(struct debug_copies *dc, const char *name, const char *id, bool by_link,
		   char *arg_take, bool usable_copy)
{
	struct debug_copy_met *v = xrealloc(dc->met, (dc->nr_met + 1) * sizeof(*v));
	if (!v || (usable_copy && !arg_take)) {
		if (v)
			dc->met = v;
		xfree(arg_take);
		return -ENOMEM;
	}
	dc->met = v;
	v[dc->nr_met] = (struct debug_copy_met){.name = xstrdup(name), .build_id = xstrdup(id),
						.arg = arg_take, .by_link = by_link};
	if (!v[dc->nr_met].name || !v[dc->nr_met].build_id) {
		xfree(v[dc->nr_met].name);
		xfree(v[dc->nr_met].build_id);
		xfree(arg_take);
		return -ENOMEM;
	}
	dc->nr_met++;
	return 0;
}

/* Removes <dir>/<name> (a copy nunatak made) and its marker. */
static void drop(const struct debug_copies *dc, const char *name, const char *id)
{
	char *p[5] = {copy_path(dc->dir, name, id), xasprintf("%s/%s/seal", dc->dir, name),
		      xasprintf("%s/%s/.build-id/%.2s", dc->dir, name, id),
		      xasprintf("%s/%s/.build-id", dc->dir, name), xasprintf("%s/%s", dc->dir, name)};
	for (int i = 0; i < 5; i++) {
		if (p[i])
			(void)(i < 2 ? unlink(p[i]) : rmdir(p[i]));
		xfree(p[i]);
	}
	char *seen = xasprintf("%s/%s.seen", dc->dir, name);
	if (seen)
		(void)unlink(seen);
	xfree(seen);
}

/* Whether the copy <dir>/<name> of build-id id is stale: its original
 * (named in its seal file) is gone, as after a package upgrade. */
static bool original_gone(const struct debug_copies *dc, const char *name)
{
	char *seal_path = xasprintf("%s/%s/seal", dc->dir, name), *text = NULL;
	size_t n = 0;
	bool gone = false;
	if (seal_path && safefs_read_owned(seal_path, 8192, &text, &n) == 0) {
		char *nl = strchr(text, '\n'), *end = nl ? strchr(nl + 1, '\n') : NULL;
		struct stat st;
		if (end) {
			*end = '\0';
			gone = stat(nl + 1, &st) != 0 && errno == ENOENT;
		}
	}
	xfree(text);
	xfree(seal_path);
	return gone;
}

/* Drops the copies of build-id id made from other originals (changed
 * since) and those whose original is gone, and says whether `more` bytes
 * still fit in the copies' budget. */
static bool room_for(const struct debug_copies *dc, const char *name, const char *id,
		     uint64_t more)
{
	DIR *d = opendir(dc->dir);
	if (!d)
		return false;
	uint64_t used = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *dot = strchr(de->d_name, '.');
		if (!dot || dot == de->d_name || strchr(dot + 1, '.') || dot - de->d_name > 128)
			continue; /* not "<build-id>.<key>" */
		char bid[130];
		snprintf(bid, sizeof(bid), "%.*s", (int)(dot - de->d_name), de->d_name);
		if (strlen(bid) < 4)
			continue;
		if ((!strcmp(bid, id) && strcmp(de->d_name, name)) || original_gone(dc, de->d_name)) {
			drop(dc, de->d_name, bid);
			continue;
		}
		char *cp = copy_path(dc->dir, de->d_name, bid);
		struct stat st;
		if (cp && lstat(cp, &st) == 0)
			used += (uint64_t)st.st_blocks * 512;
		xfree(cp);
	}
	closedir(d);
	return used + more <= COPIES_MAX_BYTES;
}

static void mark(const struct debug_copies *dc, const char *name, const char *state)
{
	char *seen = xasprintf("%s/%s.seen", dc->dir, name);
	if (seen)
		(void)fs_write_cache(seen, state, strlen(state), 0600);
	xfree(seen);
}

time_t debug_copy_retry_wait(unsigned failures)
{
	time_t w = DEBUG_COPY_RETRY_FIRST_S;
	for (unsigned i = 1; i < failures && w < DEBUG_COPY_RETRY_MAX_S; i++)
		w *= 2;
	return w < DEBUG_COPY_RETRY_MAX_S ? w : DEBUG_COPY_RETRY_MAX_S;
}

static void utc(time_t t, char *out, size_t cap)
{
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(out, cap, "%jd", (intmax_t)t);
}

/* A failed copy's marker, "fail <failures> <epoch s>" (an older nunatak's
 * "fail": once, at the marker's mtime): whether its back-off has passed
 * (a clock set back counts as passed: the next failure restarts it). */
static bool retry_due(struct debug_copies *dc, const char *seen, const char *state,
		      const char *original, unsigned *failures)
{
	unsigned n = 1;
	long long at = 0;
	struct stat st;
	if (sscanf(state, "fail %u %lld", &n, &at) != 2) {
		n = 1;
		at = stat(seen, &st) == 0 ? (long long)st.st_mtim.tv_sec : 0;
	}
	n = n ? n : 1;
	*failures = n;
	time_t next = (time_t)at + debug_copy_retry_wait(n);
	if (dc->now >= next || dc->now < (time_t)at)
		return true;
	char when[40];
	utc(next, when, sizeof(when));
	note(dc, "the copy of %s failed %u time%s: not tried again before %s", original, n,
	     n > 1 ? "s" : "", when);
	return false;
}

/* Whether the copy's directory has the room: the decompressed size and
 * 1 MB (a full disk would fail llvm-objcopy and perhaps the marker that
 * says so). Said when not: a later Run tries again at no cost. */
static bool disk_room(struct debug_copies *dc, const char *original, uint64_t need)
{
	struct statvfs fs;
	if (statvfs(dc->dir, &fs) != 0)
		return true; /* cannot tell: llvm-objcopy will */
	uint64_t avail = (uint64_t)fs.f_bavail * fs.f_frsize;
	need += (uint64_t)1 << 20;
	if (avail >= need)
		return true;
	note(dc, "no copy of %s: %.1f MB free in %s, %.1f MB needed (tried again on a later Run)",
	     original, (double)avail / 1e6, dc->dir, (double)need / 1e6);
	return false;
}

/* The original met again (a second meeting, or a retry after `failures`
 * failed attempts): the copy to make, when it is worth one. */
static int schedule(struct debug_copies *dc, const char *name, const char *id, char *orig_take,
		    const uint32_t *link_crc, unsigned failures)
{
	struct scan s;
	uint32_t crc = 0;
	int rc = 0;
	if (scan_path(orig_take, &s) != 0 || !s.zlib || s.other || !s.debug ||
	    (link_crc && (!file_crc(orig_take, &crc) || crc != *link_crc))) {
		mark(dc, name, "plain\n"); /* used in place, as LLVM does (or not at all) */
		goto out;
	}
	struct stat st;
	uint64_t need = 0;
	if (!regular(orig_take, &st))
		goto out;
	need = (uint64_t)st.st_size + s.inflated;
	if (!room_for(dc, name, id, need)) {
		note(dc, "no copy of %s: the copies would pass %ju MB (tried again on a later Run)",
		     orig_take, (uintmax_t)(COPIES_MAX_BYTES >> 20));
		goto out;
	}
	if (!disk_room(dc, orig_take, need))
		goto out;
	struct debug_copy_job *v = xrealloc(dc->jobs, (dc->nr_jobs + 1) * sizeof(*v));
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	dc->jobs = v;
	struct debug_copy_job *j = &v[dc->nr_jobs];
	memset(j, 0, sizeof(*j));
	char *base = xasprintf("%s/%s.copy", dc->dir, name);
	j->tmp = base ? fs_tmp_name(base) : NULL; /* reserved: llvm-objcopy replaces it */
	xfree(base);
	j->name = xstrdup(name);
	j->build_id = xstrdup(id);
	j->original = orig_take;
	j->failures = failures;
	orig_take = NULL;
	dc->nr_jobs++;
	if (!j->tmp || !j->name || !j->build_id)
		rc = -ENOMEM;
	j->argv[0] = dc->objcopy;
	j->argv[1] = "--decompress-debug-sections";
	j->argv[2] = j->original;
	j->argv[3] = j->tmp;
	if (failures)
		note(dc, "the copy of %s is tried again (%u failed attempt%s before)", j->original,
		     failures, failures > 1 ? "s" : "");
out:
	scan_release(&s);
	xfree(orig_take);
	return rc;
}

/* What a marker says for a file met before this Run: schedule the copy
 * (a second meeting, or a retry whose back-off has passed) or nothing. */
static int act_on_marker(struct debug_copies *dc, const char *name, const char *id,
			 char **orig, const uint32_t *link_crc, const char *seen)
{
	char *state = NULL;
	unsigned failures = 0;
	int rc = 0;
	if (safefs_read_owned(seen, 64, &state, NULL) != 0)
		return 0;
	if (!state[0] || (!strncmp(state, "fail", 4) &&
			  retry_due(dc, seen, state, *orig, &failures))) {
		rc = schedule(dc, name, id, *orig, link_crc, failures);
		*orig = NULL;
	}
	xfree(state);
	return rc;
}

/* "<build-id>.<16 hex>": where LLVM found orig and what it was; found by
 * the link, also the CRC the module asks of it (checked when the copy is
 * made). */
static char *name_of(const char *id, const char *orig, const struct stat *st, bool by_link,
		     uint32_t crc)
{
	char idn[128], hex[SHA256_HEX_SIZE];
	identity(st, idn, sizeof(idn));
	char *what = xasprintf("%s\n%s\n%s\n%d:%08x", id, orig, idn, by_link, crc);
	if (!what)
		return NULL;
	sha256_hex(what, strlen(what), hex);
	xfree(what);
	return xasprintf("%s.%.16s", id, hex);
}

static int consider(struct debug_copies *dc, const char *module, const char *build_id,
		    const char *debuglink, bool debuginfod, const struct scan *mod)
{
	char *orig = NULL;
	struct stat st;
	bool by_link;
	if (!locate(module, build_id, debuglink, debuginfod, &orig, &st, &by_link))
		return 0;
	struct scan m = {0};
	if (by_link && !mod && scan_path(module, &m) != 0)
		m.has_crc = false;
	bool has_crc = mod ? mod->has_crc : m.has_crc;
	uint32_t crc = mod ? mod->crc : m.crc;
	scan_release(&m);
	if (by_link && !has_crc) { /* a link without its CRC: LLVM's own business */
		xfree(orig);
		return 0;
	}
	char *name = name_of(build_id, orig, &st, by_link, crc);
	char *seen = name ? xasprintf("%s/%s.seen", dc->dir, name) : NULL;
	int rc = name && seen ? 0 : -ENOMEM;
	struct stat ss;
	if (rc || met_find(dc, name)) {
		/* met by an earlier call of this Run: decided then */
	} else if (usable(dc, name, build_id)) {
		rc = met_add(dc, name, build_id, by_link, xasprintf(DIR_ARG "%s/%s", dc->dir, name),
			     true);
	} else if (!(rc = met_add(dc, name, build_id, by_link, NULL, false)) &&
		   !ours(seen, false, &ss)) {
		char *why = NULL; /* first meeting: a marker, nothing more */
		if (safefs_mkdir_private(dc->dir, &why) == 0) {
			mark(dc, name, "");
			dc->nr_seen++;
		}
		xfree(why);
	} else if (!rc) {
		rc = act_on_marker(dc, name, build_id, &orig, by_link ? &crc : NULL, seen);
	}
	xfree(seen);
	xfree(name);
	xfree(orig);
	return rc;
}

static bool hex_id(const char *id)
{
	return id && strlen(id) >= 4 && strspn(id, "0123456789abcdef") == strlen(id);
}

int debug_copies__consider(struct debug_copies *dc, const char *module, const char *build_id,
			   const char *debuglink, bool debuginfod)
{
	if (!dc || !dc->dir || !hex_id(build_id))
		return 0;
	return consider(dc, module, build_id, debuglink, debuginfod, NULL);
}

int debug_copies__consider_module(struct debug_copies *dc, const char *module, bool debuginfod)
{
	if (!dc || !dc->dir || !module)
		return 0;
	struct scan m;
	int rc = 0;
	/* with .debug_info of its own, LLVM's answers are the module's: no
	 * copy (as for the Hotspots' modules) */
	if (scan_path(module, &m) == 0 && !m.debug_info && hex_id(m.build_id))
		rc = consider(dc, module, m.build_id, m.link, debuginfod, &m);
	scan_release(&m);
	return rc;
}

const char **debug_copies__args(struct debug_copies *dc, bool debuginfod)
{
	if (!dc || !dc->dir)
		return NULL;
	const char **v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < dc->nr_met; i++) {
		struct debug_copy_met *e = &dc->met[i];
		if (!e->arg || (debuginfod && e->by_link))
			continue;
		if (!usable(dc, e->name, e->build_id)) { /* changed since it was met */
			zfree(&e->arg);
			continue;
		}
		const char **w = xrealloc(v, (n + 3) * sizeof(*w));
		if (!w) {
			xfree(v);
			return NULL; /* out of memory: without the copies */
		}
		v = w;
		v[n++] = e->arg;
	}
	if (n) {
		v[n++] = DIR_ARG DEFAULT_DIR;
		v[n] = NULL;
	}
	return v;
}

const char **debug_copies__argv(const char *const *argv, const char *const *extra, bool *oom)
{
	size_t n = 0, x = 0;
	*oom = false;
	while (argv && argv[n])
		n++;
	while (extra && extra[x])
		x++;
	if (!x || n < 3)
		return NULL;
	const char **v = xcalloc(n + x + 1, sizeof(*v));
	if (!v) {
		*oom = true;
		return NULL;
	}
	memcpy(v, argv, 3 * sizeof(*v));
	memcpy(v + 3, extra, x * sizeof(*v));
	memcpy(v + 3 + x, argv + 3, (n - 3) * sizeof(*v));
	return v;
}

size_t debug_copies__pending(const struct debug_copies *dc)
{
	return dc ? dc->nr_jobs - dc->nr_issued : 0;
}

void debug_copies__requests(const struct debug_copies *dc, struct exec_request *out)
{
	for (size_t i = 0; i < debug_copies__pending(dc); i++)
		out[i] = (struct exec_request){.argv = dc->jobs[dc->nr_issued + i].argv,
					       .capture_stdout = true, .capture_stderr = true,
					       .timeout_s = 120};
}

/* The copy llvm-objcopy wrote: ours, a regular file, the same build-id,
 * nothing compressed left, debug sections in it. */
static bool copy_sound(const struct debug_copy_job *j)
{
	int fd = safefs_open_owned(j->tmp);
	if (fd < 0)
		return false;
	struct scan s;
	bool ok = scan_fd(fd, &s) == 0 && !s.zlib && !s.other && s.debug && s.build_id &&
		  !strcmp(s.build_id, j->build_id);
	scan_release(&s);
	close(fd);
	return ok;
}

/* Moves a sound copy into place and seals its identity. */
static bool put_in_place(const struct debug_copies *dc, const struct debug_copy_job *j)
{
	const char *id = j->build_id;
	char *sub = xasprintf("%s/%s/.build-id/%.2s", dc->dir, j->name, id);
	char *dst = copy_path(dc->dir, j->name, id), *why = NULL;
	char *seal_path = xasprintf("%s/%s/seal", dc->dir, j->name);
	struct stat st;
	bool ok = sub && dst && seal_path && safefs_mkdir_private(sub, &why) == 0 &&
		  rename(j->tmp, dst) == 0 && ours(dst, false, &st);
	if (ok) {
		char seal[SHA256_HEX_SIZE], idn[128], recipe[256];
		identity(&st, idn, sizeof(idn));
		int rl = snprintf(recipe, sizeof(recipe), SEAL_RECIPE "%s\n", j->name);
		cache_seal_with(dc->key, recipe, (size_t)rl, idn, strlen(idn), seal);
		/* the original's path after the seal: a copy whose original is
		 * gone is dropped when another is made (room_for) */
		char *text = xasprintf("%s\n%s\n", seal, j->original);
		ok = text && fs_write_cache(seal_path, text, strlen(text), 0600) == 0;
		xfree(text);
	}
	xfree(why);
	xfree(sub);
	xfree(dst);
	xfree(seal_path);
	return ok;
}

/* Why a copy failed, in a few words: llvm-objcopy's last stderr line. */
static void failure_why(const struct exec_result *r, char *out, size_t cap)
{
	const char *e = r->err ? r->err : "";
	size_t len = strlen(e);
	while (len && (e[len - 1] == '\n' || e[len - 1] == ' '))
		len--;
	const char *line = e + len;
	while (line > e && line[-1] != '\n')
		line--;
	if (r->timed_out)
		snprintf(out, cap, "timed out");
	else if (r->exit_code)
		snprintf(out, cap, "exit status %d: %.*s", r->exit_code,
			 (int)(len - (size_t)(line - e)), line);
	else
		snprintf(out, cap, "its output was not a sound copy");
}

void debug_copies__finish(struct debug_copies *dc, const struct exec_result *res)
{
	for (size_t i = 0; i < debug_copies__pending(dc); i++) {
		const struct debug_copy_job *j = &dc->jobs[dc->nr_issued + i];
		bool ok = res[i].exit_code == 0 && !res[i].timed_out && copy_sound(j) &&
			  put_in_place(dc, j);
		(void)unlink(j->tmp); /* gone when moved */
		char *seen = ok ? xasprintf("%s/%s.seen", dc->dir, j->name) : NULL;
		if (seen) { /* made: should it ever be unusable, a Run meets it anew */
			(void)unlink(seen);
			dc->nr_made++;
		} else if (!ok) { /* tried again after a back-off */
			char why[200], state[64], when[40];
			failure_why(&res[i], why, sizeof(why));
			unsigned n = j->failures + 1;
			snprintf(state, sizeof(state), "fail %u %lld\n", n, (long long)dc->now);
			mark(dc, j->name, state);
			dc->nr_failed++;
			utc(dc->now + debug_copy_retry_wait(n), when, sizeof(when));
			note(dc, "the copy of %s failed (%s; attempt %u): tried again after %s",
			     j->original, why, n, when);
		}
		xfree(seen);
	}
	if (dc)
		dc->nr_issued = dc->nr_jobs;
}

const char *const *debug_copies__notes(struct debug_copies *dc)
{
	if (!dc || !dc->dir)
		return NULL;
	size_t used = 0;
	for (size_t i = 0; i < dc->nr_met; i++)
		used += dc->met[i].arg != NULL;
	if ((!dc->nr_met && !dc->nr_notes) || dc->summarized)
		return dc->nr_notes ? (const char *const *)dc->notes : NULL;
	dc->summarized = true;
	note(dc, "debug copies: %zu separate debug file%s met, %zu read from a decompressed "
	     "copy, %zu met for the first time (marker left), %zu cop%s made, %zu failed",
	     dc->nr_met, dc->nr_met == 1 ? "" : "s", used, dc->nr_seen, dc->nr_made,
	     dc->nr_made == 1 ? "y" : "ies", dc->nr_failed);
	return (const char *const *)dc->notes;
}

void debug_copies__release(struct debug_copies *dc)
{
	if (!dc)
		return;
	for (size_t i = 0; i < dc->nr_jobs; i++) {
		xfree(dc->jobs[i].name);
		xfree(dc->jobs[i].original);
		xfree(dc->jobs[i].tmp);
		xfree(dc->jobs[i].build_id);
	}
	xfree(dc->jobs);
	for (size_t i = 0; i < dc->nr_met; i++) {
		xfree(dc->met[i].name);
		xfree(dc->met[i].build_id);
		xfree(dc->met[i].arg);
	}
	xfree(dc->met);
	for (size_t i = 0; i < dc->nr_notes; i++)
		free(dc->notes[i]);
	xfree(dc->notes);
	xfree(dc->dir);
	xfree(dc->objcopy);
	memset(dc, 0, sizeof(*dc));
}
