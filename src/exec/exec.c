// SPDX-License-Identifier: BSD-3-Clause
/* Executor-independent helpers of the execution boundary. */
#include "exec/exec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "exec/exec_internal.h"

void executor__free(struct executor *x)
{
	if (x && x->ops && x->ops->free)
		x->ops->free(x);
}

void exec_result__release(struct exec_result *res)
{
	if (!res)
		return;
	xfree(res->out);
	xfree(res->err);
	memset(res, 0, sizeof(*res));
}

const char *exec_basename(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
	return slash ? slash + 1 : (argv0 ? argv0 : "");
}

int exec_read_file(const char *path, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;
	for (;;) {
		if (xgrow((void **)&buf, &cap, n + 65536 + 1, 1) < 0) {
			rc = -ENOMEM;
			break;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = -EIO;
			break;
		}
	}
	fclose(f);
	if (rc < 0) {
		xfree(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int exec_write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	int rc = 0;
	if (len && fwrite(data, 1, len, f) != len)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}
