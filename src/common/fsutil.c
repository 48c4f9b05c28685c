// SPDX-License-Identifier: BSD-3-Clause
#include "common/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

int fs_read_file(const char *path, size_t max, char **out, size_t *len)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	int rc = 0;
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max + 1) {
				rc = -EFBIG;
				goto out;
			}
			if (xgrow((void **)&buf, &cap, cap * 2, 1)) {
				rc = -ENOMEM;
				goto out;
			}
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			rc = -EFBIG;
			goto out;
		}
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = n;
out:
	xfree(buf);
	close(fd);
	return rc;
}

/* Opens path's directory (before a rename, so that nothing can fail for
 * want of memory once the rename has happened). */
static int open_parent(const char *path)
{
	char *copy = xstrdup(path);
	if (!copy)
		return -ENOMEM;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	xfree(copy);
	return fd < 0 ? -errno : fd;
}

int fs_rename_durable(const char *tmp, const char *path, struct err *e)
{
	int dfd = open_parent(path);
	if (dfd < 0)
		return err_set(e, dfd, dfd == -ENOMEM ? ERR_OOM : ERR_STORE_WRITE,
			       "cannot open the directory of %s: %s", path, strerror(-dfd));
	if (rename(tmp, path) < 0) {
		int rc = -errno;
		close(dfd);
		return err_set(e, rc, ERR_STORE_WRITE, "cannot rename %s to %s: %s", tmp, path,
			       strerror(-rc));
	}
	/* Some filesystems refuse fsync on a directory (EINVAL): the rename is
	 * still atomic there, only its durability is the filesystem's business. */
	int rc = fsync(dfd) < 0 && errno != EINVAL ? -errno : 0;
	close(dfd);
	if (rc)
		return err_set(e, rc, ERR_STORE_WRITE, "cannot sync the directory of %s: %s", path,
			       strerror(-rc));
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* 16 hex digits nobody can guess (getrandom; the clock and the pid mixed
 * in only if that fails, where a guess is still not an attack: the create
 * below is exclusive). */
static void random_hex(char out[17])
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
		     ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;
	}
	snprintf(out, 17, "%016" PRIx64, v);
}

int fs_tmp_create(const char *path, unsigned mode, char **tmp)
{
	*tmp = NULL;
	for (int tries = 0; tries < 64; tries++) {
		char r[17];
		random_hex(r);
		char *name = xasprintf("%s.tmp.%s", path, r);
		if (!name)
			return -ENOMEM;
		int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		int er = errno;
		xfree(name);
		if (er != EEXIST)
			return -er;
	}
	return -EEXIST;
}

char *fs_tmp_name(const char *path)
{
	char *tmp = NULL;
	int fd = fs_tmp_create(path, 0644, &tmp);
	if (fd >= 0)
		close(fd);
	else
		errno = -fd;
	return tmp;
}

int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e)
{
	char *tmp = NULL;
	int rc = 0;
	int fd = fs_tmp_create(path, 0644, &tmp);
	if (fd == -ENOMEM)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory writing %s", path);
	if (fd < 0) {
		rc = err_set(e, fd, ERR_STORE_WRITE, "cannot create a temporary file beside %s: %s",
			     path, strerror(-fd));
		goto out;
	}
	rc = write_all(fd, data, len);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc) {
		err_set(e, rc, ERR_STORE_WRITE, "cannot write %s: %s", tmp, strerror(-rc));
		unlink(tmp);
		goto out;
	}
	rc = fs_rename_durable(tmp, path, e);
	if (rc)
		unlink(tmp);
out:
	xfree(tmp);
	return rc;
}

int fs_mkdir_p(const char *path)
{
	if (!path || !*path)
		return -EINVAL;
	char *p = xstrdup(path);
	if (!p)
		return -ENOMEM;
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	struct stat st;
	if (!rc && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
		rc = -ENOTDIR;
	xfree(p);
	return rc;
}

char *fs_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	while (la > 1 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	if (la == 1 && a[0] == '/')
		return xasprintf("/%s", b);
	return xasprintf("%.*s/%s", (int)la, a, b);
}

int fs_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int fs_write_cache(const char *path, const void *data, size_t len, unsigned mode)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : NULL;
	char *tmp = NULL;
	int rc = !slash || dir ? 0 : -ENOMEM;
	if (rc == 0 && dir && dir[0])
		rc = fs_mkdir_p(dir);
	int fd = rc == 0 ? fs_tmp_create(path, mode, &tmp) : -1;
	if (rc == 0 && fd < 0)
		rc = fd;
	if (fd >= 0) {
		const char *p = data;
		for (size_t done = 0; rc == 0 && done < len;) {
			ssize_t w = write(fd, p + done, len - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				rc = w < 0 ? -errno : -EIO;
			else
				done += (size_t)w;
		}
		if (close(fd) != 0 && rc == 0)
			rc = -errno;
		if (rc == 0 && rename(tmp, path) != 0)
			rc = -errno;
		if (rc != 0)
			(void)unlink(tmp);
	}
	xfree(dir);
	xfree(tmp);
	return rc;
}
