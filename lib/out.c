/* SPDX-License-Identifier: BSD-3-Clause */
/* The buffered output file every writer and the stream write through
 * (out.h): below the writers, so no writer calls back into another's file. */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmpname.h"

int sp_out__open(struct sp_out *o, const char *final_path)
{
	o->fd = -1;
	o->err = 0;
	o->n = 0;
	o->final_path = strdup(final_path);
	size_t len = strlen(final_path) + SP_TMP_EXTRA;
	o->tmp_path = malloc(len);
	if (!o->final_path || !o->tmp_path) {
		o->err = -ENOMEM;
		return o->err;
	}
	o->fd = sp_tmp_create(final_path, o->tmp_path, len, 0); /* O_RDWR: read back (writer_stream.c) */
	if (o->fd < 0) {
		o->err = o->fd;
		o->fd = -1;
	}
	return o->err;
}

static void flush(struct sp_out *o, const void *p, size_t n)
{
	const unsigned char *c = p;
	while (n && !o->err) {
		ssize_t w = write(o->fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? -errno : -EIO;
			break;
		}
		c += w;
		n -= (size_t)w;
	}
}

void sp_out__write(struct sp_out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (o->n + n > sizeof(o->buf)) {
		flush(o, o->buf, o->n);
		o->n = 0;
	}
	if (n > sizeof(o->buf)) {
		flush(o, p, n);
		return;
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}

off_t sp_out__flush(struct sp_out *o)
{
	if (!o->err && o->n)
		flush(o, o->buf, o->n);
	o->n = 0;
	if (o->err)
		return -1;
	off_t at = lseek(o->fd, 0, SEEK_CUR);
	if (at < 0)
		o->err = -errno;
	return at;
}

int sp_out__commit(struct sp_out *o)
{
	if (!o->err && o->n)
		flush(o, o->buf, o->n);
	o->n = 0;
	if (o->fd >= 0 && close(o->fd) != 0 && !o->err)
		o->err = -errno;
	o->fd = -1;
	if (!o->err && rename(o->tmp_path, o->final_path) != 0)
		o->err = -errno;
	if (o->err && o->tmp_path)
		unlink(o->tmp_path);
	free(o->tmp_path);
	free(o->final_path);
	o->tmp_path = o->final_path = NULL;
	return o->err;
}

void sp_out__make_dirs_in(const char *path, char *buf)
{
	size_t n = strlen(path);
	memcpy(buf, path, n + 1);
	char *slash = strrchr(buf, '/');
	if (slash && slash != buf) {
		*slash = 0;
		for (char *c = buf + 1; *c; c++) {
			if (*c != '/')
				continue;
			*c = 0;
			mkdir(buf, 0755);
			*c = '/';
		}
		mkdir(buf, 0755);
	}
}

void sp_out__make_dirs(const char *path)
{
	char *p = malloc(strlen(path) + 1);
	if (p)
		sp_out__make_dirs_in(path, p);
	free(p);
}
