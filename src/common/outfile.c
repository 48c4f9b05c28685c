// SPDX-License-Identifier: BSD-3-Clause
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"

char *outfile_tmp_name(const char *path)
{
	return fs_tmp_name(path);
}

/* fsync of the temporary, then the rename and the directory's fsync: after
 * a crash the destination holds either its old bytes or all the new ones. */
static int durable_rename(const char *tmp, const char *path, int fd)
{
	if (fd >= 0 && fsync(fd) < 0 && errno != EINVAL)
		return -errno;
	struct err ignored = {0}; /* the caller words the error as output.write */
	return fs_rename_durable(tmp, path, &ignored);
}

int outfile_commit_path(const char *tmp, const char *path, struct err *e)
{
	int fd = open(tmp, O_RDONLY | O_CLOEXEC);
	int rc = fd < 0 ? -errno : durable_rename(tmp, path, fd);
	if (fd >= 0)
		close(fd);
	if (rc)
		err_set(e, rc, ERR_OUTPUT_WRITE, "%s: cannot write: %s (nothing was written)", path,
			strerror(-rc));
	return rc;
}

int outfile__open(struct outfile *o, const char *path, struct err *e)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->path = xstrdup(path);
	if (!o->path) {
		outfile__abort(o);
		return err_oom(e);
	}
	int fd = fs_tmp_create(path, 0644, &o->tmp);
	if (fd == -ENOMEM) {
		outfile__abort(o);
		return err_oom(e);
	}
	if (fd < 0)
		errno = -fd;
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int er = errno;
		if (fd >= 0)
			close(fd);
		err_set(e, -er, ERR_OUTPUT_OPEN, "%s: cannot create: %s", path, strerror(er));
		outfile__abort(o); /* removes the temporary file when made */
		return -er;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 20);
	return 0;
}

int outfile__commit(struct outfile *o, struct err *e)
{
	if (o->f == stdout) {
		o->f = NULL;
		if (fflush(stdout) != 0 || ferror(stdout))
			return err_set(e, -EIO, ERR_OUTPUT_WRITE, "cannot write to standard output");
		return 0;
	}
	int bad = fflush(o->f) != 0 || ferror(o->f);
	int er = errno;
	if (!bad && fsync(fileno(o->f)) != 0 && errno != EINVAL) {
		bad = 1;
		er = errno;
	}
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		er = errno;
	}
	o->f = NULL;
	int rc = bad ? 0 : durable_rename(o->tmp, o->path, -1);
	if (rc) {
		bad = 1;
		er = -rc;
	}
	if (bad) {
		err_set(e, -er, ERR_OUTPUT_WRITE, "%s: cannot write: %s (nothing was written)",
			o->path, strerror(er));
		outfile__abort(o);
		return -er;
	}
	zfree(&o->tmp);
	zfree(&o->path);
	return 0;
}

void outfile__abort(struct outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	zfree(&o->tmp);
	zfree(&o->path);
}
