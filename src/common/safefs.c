// SPDX-License-Identifier: BSD-3-Clause
#include "common/safefs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"

const char *safefs_untrusted_why(const struct stat *st)
{
	uid_t me = geteuid();
	if (st->st_uid != me && st->st_uid != 0)
		return "owned by another user (neither you nor root)";
	bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
	if ((st->st_mode & S_IWOTH) && !sticky_dir)
		return "writable by every user";
	if ((st->st_mode & S_IWGRP) && st->st_gid != getegid() && !sticky_dir)
		return "writable by a group other users belong to";
	return NULL;
}

char *safefs_dir_chain_problem(const char *dir)
{
	char *d = xstrdup(dir && dir[0] ? dir : ".");
	char *problem = NULL;
	while (d && !problem) {
		struct stat st;
		const char *why = stat(d, &st) != 0 ? "cannot be examined" :
				  !S_ISDIR(st.st_mode) ? "is not a directory" :
							 safefs_untrusted_why(&st);
		if (why) {
			problem = xasprintf("%s: %s", d, why);
			break;
		}
		char *slash = strrchr(d, '/');
		if (!slash || (slash == d && !d[1]))
			break; /* "/" or a relative name's first component */
		slash[slash == d ? 1 : 0] = '\0';
	}
	xfree(d);
	return problem;
}

int safefs_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP ? -ELOOP : -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int safefs_open_owned(const char *path)
{
	int fd = safefs_open_regular(path);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || safefs_untrusted_why(&st))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

const char *safefs_strerror(int rc)
{
	switch (rc) {
	case -ELOOP:
		return "it is a symbolic link (refused: it could point anywhere)";
	case -EINVAL:
		return "it is not a regular file (a FIFO, device, socket or directory)";
	case -EPERM:
		return "it is owned by another user or writable by others";
	default:
		return strerror(rc < 0 ? -rc : rc);
	}
}

static int read_fd(int fd, size_t max, char **out, size_t *len);

int safefs_read_owned(const char *path, size_t max, char **out, size_t *len)
{
	*out = NULL;
	int fd = safefs_open_owned(path);
	return fd < 0 ? fd : read_fd(fd, max, out, len);
}

int safefs_read_regular(const char *path, size_t max, char **out, size_t *len)
{
	*out = NULL;
	int fd = safefs_open_regular(path);
	return fd < 0 ? fd : read_fd(fd, max, out, len);
}

int safefs_check_regular(const char *path)
{
	int fd = safefs_open_regular(path);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Reads the whole of fd (closed here). */
static int read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	int rc = buf ? 0 : -ENOMEM;
	while (rc == 0) {
		if (n + 1 >= cap && (cap > max + 1 || xgrow((void **)&buf, &cap, cap * 2, 1)))
			rc = cap > max + 1 ? -EFBIG : -ENOMEM;
		ssize_t got = rc ? 0 : read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			rc = -errno;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n > max)
			rc = -EFBIG;
	}
	close(fd);
	if (rc) {
		xfree(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

/* One component: made 0700, or checked when it exists. */
static int mkdir_one(const char *p, bool last, char **why)
{
	if (mkdir(p, 0700) == 0)
		return 0;
	if (errno != EEXIST) {
		int rc = -errno;
		*why = xasprintf("cannot create %s: %s", p, strerror(-rc));
		return rc;
	}
	if (!last)
		return 0; /* ancestors are checked as a chain by the caller */
	struct stat st;
	if (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*why = xasprintf("%s: is not a directory (a symbolic link or a file)", p);
		return -EPERM;
	}
	if (st.st_uid != geteuid()) {
		*why = xasprintf("%s: owned by another user (uid %ld), not by you", p,
				 (long)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0700 && chmod(p, 0700) != 0) {
		int rc = -errno;
		*why = xasprintf("cannot make %s private (chmod 0700): %s", p, strerror(-rc));
		return rc;
	}
	return 0;
}

int safefs_mkdir_private(const char *dir, char **why)
{
	*why = NULL;
	if (!dir || !dir[0])
		return -EINVAL;
	char *p = xstrdup(dir);
	if (!p)
		return -ENOMEM;
	int rc = 0;
	for (char *s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		rc = mkdir_one(p, c == '\0', why);
		*s = c;
		if (c == '\0')
			break;
	}
	char *slash = rc == 0 ? strrchr(p, '/') : NULL;
	if (slash && slash != p) {
		*slash = '\0';
		char *problem = safefs_dir_chain_problem(p);
		if (problem) {
			*why = problem;
			rc = -EPERM;
		}
	}
	xfree(p);
	return rc;
}
