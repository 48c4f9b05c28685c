// SPDX-License-Identifier: BSD-3-Clause
#include "collect/preload_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"

/* The characters ld.so takes as separators in LD_PRELOAD. */
static int needs_link(const char *lib)
{
	return strpbrk(lib, " :\t\n") != NULL;
}

int preload_path__make(struct preload_path *pp, const char *lib)
{
	memset(pp, 0, sizeof(*pp));
	if (!lib)
		return 0;
	pp->path = xstrdup(lib);
	if (!pp->path)
		return -ENOMEM;
	if (!needs_link(lib))
		return 0;
	const char *tmp = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/nunatak-preload-XXXXXX",
			       tmp && *tmp == '/' && !needs_link(tmp) ? tmp : "/tmp");
	if (!tmpl)
		return -ENOMEM;
	if (!mkdtemp(tmpl)) {
		int err = -errno;
		xfree(tmpl);
		return err;
	}
	const char *base = strrchr(lib, '/');
	base = base ? base + 1 : lib;
	char *link = needs_link(base) ? xasprintf("%s/lib.so", tmpl) : xasprintf("%s/%s", tmpl, base);
	if (!link || symlink(lib, link) != 0) {
		int err = link ? -errno : -ENOMEM;
		rmdir(tmpl);
		xfree(tmpl);
		xfree(link);
		return err;
	}
	xfree(pp->path);
	pp->path = link;
	pp->dir = tmpl;
	return 0;
}

void preload_path__release(struct preload_path *pp)
{
	if (pp->dir) {
		unlink(pp->path);
		rmdir(pp->dir);
	}
	xfree(pp->path);
	xfree(pp->dir);
	memset(pp, 0, sizeof(*pp));
}
