// SPDX-License-Identifier: BSD-3-Clause
/* perf record's start-up as root without /proc/kallsyms (perf_kallsyms.h). */
#include "collect/perf_kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/host_clock.h"
#include "common/fsutil.h"
#include "tools/perf.h"

#define TABLE_MAX 16384             /* a few lines; anything larger is not ours */
/* where _text must show in /proc/kallsyms: after the per-CPU symbols some
 * kernels list first (line 3 on 6.18; the read stops at _text) */
#define KERNEL_PREFIX_MAX (1 << 20)
#define CAP_SYS_ADMIN_BIT 21
#define HIGH_FD 256 /* where the two descriptors perf inherits are put */

bool perf_kallsyms_wanted(const char *name, size_t len)
{
	static const char *const names[] = {"_text", "_stext", "_etext", "_edata", "_end",
					    "_entry_trampoline", "__entry_SYSCALL_64_trampoline"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return true;
	return false;
}

/* A kallsyms line's name (third field) when it is a core kernel symbol
 * (no "\t[module]"), else NULL. */
static const char *line_name(const char *line, size_t len, size_t *nlen)
{
	const char *sp = memchr(line, ' ', len);
	const char *sp2 = sp ? memchr(sp + 1, ' ', len - (size_t)(sp + 1 - line)) : NULL;
	if (!sp2)
		return NULL;
	const char *name = sp2 + 1, *end = line + len;
	if (memchr(name, '\t', (size_t)(end - name)))
		return NULL;
	*nlen = (size_t)(end - name);
	return name;
}

/* The first line of text (len bytes) named `want`, its length in *n. */
static const char *find_line(const char *text, size_t len, const char *want, size_t *n)
{
	for (const char *l = text; l < text + len;) {
		const char *nl = memchr(l, '\n', (size_t)(text + len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(text + len - l), nlen = 0;
		const char *name = line_name(l, ll, &nlen);
		if (name && nlen == strlen(want) && !memcmp(name, want, nlen)) {
			*n = ll;
			return l;
		}
		l = nl ? nl + 1 : text + len;
	}
	return NULL;
}

/* The kernel's own "_text" line, read from the start of /proc/kallsyms
 * (~100 symbols formatted, not 121 k). */
static char *kernel_text_line(void)
{
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	char *buf = fd >= 0 ? xmalloc(KERNEL_PREFIX_MAX) : NULL;
	size_t len = 0, n = 0;
	char *line = NULL;
	while (buf && !line && len < KERNEL_PREFIX_MAX) {
		ssize_t r = read(fd, buf + len, KERNEL_PREFIX_MAX - len);
		if (r <= 0)
			break;
		len += (size_t)r;
		const char *l = find_line(buf, len, "_text", &n);
		/* a whole line only: the next one has begun */
		if (l && l + n < buf + len)
			line = xstrndup(l, n);
	}
	if (fd >= 0)
		close(fd);
	xfree(buf);
	return line;
}

bool perf_kallsyms_table_valid(const char *text, size_t len, const char *kernel_line)
{
	size_t n = 0, m = 0;
	const char *t = find_line(text, len, "_text", &n);
	if (!t || !find_line(text, len, "_etext", &m) || !kernel_line ||
	    strlen(kernel_line) != n || memcmp(t, kernel_line, n) != 0)
		return false;
	/* _text at a non-zero address (kptr_restrict shows zeros): the line
	 * up to its first blank, within the line */
	for (size_t i = 0; i < n && t[i] != ' '; i++)
		if (t[i] != '0')
			return true;
	return false;
}

/* The table as it is on disk: a small regular file of root's, mode 0600. */
static char *read_table(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	    !(st.st_mode & 077) && st.st_size > 0 && st.st_size <= TABLE_MAX) {
		buf = xmalloc((size_t)st.st_size + 1);
		ssize_t r = buf ? read(fd, buf, (size_t)st.st_size) : -1;
		if (r != st.st_size) {
			xfree(buf);
			buf = NULL;
		} else {
			buf[r] = '\0';
			*len = (size_t)r;
		}
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

/* The boot's table's path under the tool cache (malloc'd), or NULL. */
static char *table_path(void)
{
	char boot[HOST_CLOCK_BOOT_ID_SIZE];
	int no_home = 0;
	char *dir = host_boot_id(boot) == 0 ? cache_home_path("perf-kallsyms", &no_home) : NULL;
	char *path = dir ? xasprintf("%s/%s.kallsyms", dir, boot) : NULL;
	xfree(dir);
	return path;
}

/* The table at path is there, ours, and the running kernel's. */
static bool table_ok(const char *path)
{
	size_t len = 0;
	char *text = read_table(path, &len);
	char *kline = text ? kernel_text_line() : NULL;
	bool ok = text && perf_kallsyms_table_valid(text, len, kline);
	xfree(text);
	xfree(kline);
	return ok;
}

/* The tap's side of the one read of /proc/kallsyms (attrib.h): the lines
 * perf looks up, kept as the whole file goes by ... */
static bool keep_line(const char *line, size_t len)
{
	size_t nlen = 0;
	const char *name = line_name(line, len, &nlen);
	return name && perf_kallsyms_wanted(name, nlen);
}

/* ... and, once it has been read whole, written as the boot's table
 * when they make one (_text as the kernel shows it now, _etext), unless
 * the table there holds them already (the kernel's table alone was
 * missing: perf's, maybe in use, is left as it is). */
static int store_table(const char *lines, size_t len)
{
	char *path = len <= TABLE_MAX ? table_path() : NULL;
	char *kline = path ? kernel_text_line() : NULL;
	size_t have_len = 0;
	char *have = path ? read_table(path, &have_len) : NULL;
	int rc = !path ? -ENOENT
		 : !perf_kallsyms_table_valid(lines, len, kline)
			 ? -ENOENT /* no _text/_etext, or addresses hidden (kptr_restrict) */
		 : have && have_len == len && !memcmp(have, lines, len)
			 ? 0
			 : fs_write_cache(path, lines, len, 0600);
	xfree(have);
	xfree(kline);
	xfree(path);
	return rc;
}

static const struct attrib_ktap TAP = {keep_line, store_table};

/* Root with CAP_SYS_ADMIN in effect, not chrooted (setns puts the caller at
 * its namespace's root). Threads do not matter: the calling thread alone
 * changes namespace (and gets a working directory of its own), and perf is
 * started from it. */
static bool may_enter(void)
{
	if (geteuid() != 0)
		return false;
	char root[8];
	ssize_t r = readlink("/proc/self/root", root, sizeof(root));
	if (r != 1 || root[0] != '/')
		return false;
	char *st = NULL;
	if (fs_read_file("/proc/self/status", 1 << 16, &st, NULL) != 0)
		return false;
	const char *eff = strstr(st, "\nCapEff:");
	bool ok = eff && (strtoull(eff + 8, NULL, 16) >> CAP_SYS_ADMIN_BIT & 1);
	xfree(st);
	return ok;
}

/* A table written at path since the wait began (attrib_kernel_lock's
 * ready): the lock's holder made it, and stores the kernel's table now. */
struct table_wait {
	const char *path;
	bool had;  /* a file was there (forged, or half-checked) ... */
	ino_t ino; /* ... this one */
};

static bool table_new(void *arg)
{
	const struct table_wait *w = arg;
	struct stat st;
	return stat(w->path, &st) == 0 && (!w->had || st.st_ino != w->ino);
}

char *perf_kallsyms_table(void)
{
#if !defined(__x86_64__)
	return NULL; /* perf's readers were checked on x86_64 only */
#else
	char *path = may_enter() ? table_path() : NULL;
	if (!path || table_ok(path))
		return path;
	/* one read of /proc/kallsyms per boot and node: the ranks of a node,
	 * and the Run's read-ahead of the kernel's table, which makes both
	 * tables in one read when it is first (attrib.h); the table looked at
	 * again once the lock is held */
	struct stat st;
	struct table_wait w = {path, stat(path, &st) == 0, 0};
	w.ino = w.had ? st.st_ino : 0;
	int lock = attrib_kernel_lock(table_new, &w);
	bool ok = table_ok(path) || attrib_kernel_read_boot(&TAP) == 0;
	attrib_kernel_unlock(lock);
	if (!ok)
		zfree(&path);
	return path;
#endif
}

const struct attrib_ktap *perf_kallsyms_tap(const struct perf_version *v)
{
#if !defined(__x86_64__)
	(void)v;
	return NULL;
#else
	return v && v->major == 6 && v->minor == 1 && may_enter() ? &TAP : NULL;
#endif
}

/* fd moved to the lowest free number from HIGH_FD up, without close-on-exec
 * (-1 when it cannot be: then nothing is entered). */
static int high_fd(int fd)
{
	if (fd < 0)
		return -1;
	int h = fcntl(fd, F_DUPFD, HIGH_FD);
	int saved = errno;
	close(fd);
	errno = saved;
	return h;
}

int perf_kallsyms_enter(struct perf_kallsyms *k, const char *table)
{
	*k = (struct perf_kallsyms){.ns_fd = -1, .cwd_fd = -1};
	/* inherited on purpose (no O_CLOEXEC): perf keeps them, fg-exec uses them;
	 * numbered high, so that perf's own descriptors keep their numbers (perf
	 * 6.1 leaks an eventfd into the application, at the number it had) */
	k->ns_fd = high_fd(open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC));
	k->cwd_fd = k->ns_fd >= 0 ? high_fd(open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) : -1;
	int rc = k->cwd_fd >= 0 ? 0 : -errno;
	if (rc == 0 && unshare(CLONE_NEWNS) != 0)
		rc = -errno;
	else if (rc == 0) {
		k->entered = true;
		/* nothing of this namespace propagates back to the rank's */
		if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0 ||
		    mount(table, "/proc/kallsyms", NULL, MS_BIND, NULL) != 0)
			rc = -errno;
	}
	if (rc < 0) {
		perf_kallsyms_leave(k);
		return rc;
	}
	snprintf(k->word, sizeof(k->word), "%d,%d", k->ns_fd, k->cwd_fd);
	return 0;
}

void perf_kallsyms_leave(struct perf_kallsyms *k)
{
	if (k->entered && k->ns_fd >= 0 && setns(k->ns_fd, CLONE_NEWNS) == 0 && k->cwd_fd >= 0)
		(void)!fchdir(k->cwd_fd);
	if (k->ns_fd >= 0)
		close(k->ns_fd);
	if (k->cwd_fd >= 0)
		close(k->cwd_fd);
	*k = (struct perf_kallsyms){.ns_fd = -1, .cwd_fd = -1};
}

int perf_kallsyms_return(const char *word)
{
	int ns = -1, cwd = -1;
	char end = 0;
	if (!word || sscanf(word, "%d,%d%c", &ns, &cwd, &end) != 2 || ns < 3 || cwd < 3)
		return -EINVAL;
	int rc = setns(ns, CLONE_NEWNS) == 0 && fchdir(cwd) == 0 ? 0 : -errno;
	close(ns);
	close(cwd);
	return rc;
}
