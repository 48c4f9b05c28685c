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

int executor__run_batch(struct executor *x, const struct exec_request *reqs, size_t n,
			struct exec_result *res, struct err *e)
{
	for (size_t i = 0; i < n; i++)
		memset(&res[i], 0, sizeof(res[i]));
	bool tools_only = true;
	for (size_t i = 0; i < n; i++)
		tools_only = tools_only && !reqs[i].application && !reqs[i].forward_signals;
	/* An application (or a call forwarding signals) never runs beside
	 * another: those go one by one, as run() would. */
	if (x->ops->run_batch && tools_only)
		return x->ops->run_batch(x, reqs, n, res, e);
	for (size_t i = 0; i < n; i++) {
		int rc = x->ops->run(x, &reqs[i], &res[i], e);
		if (rc < 0)
			return rc;
	}
	return 0;
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
