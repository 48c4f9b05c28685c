// SPDX-License-Identifier: BSD-3-Clause
#include "cli/docs_path.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "common/alloc.h"

static char *readable_dir(char *dir, const char *probe)
{
	char *p = dir ? xasprintf("%s/%s", dir, probe) : NULL;
	bool ok = p && access(p, R_OK) == 0;
	xfree(p);
	if (ok)
		return dir;
	xfree(dir);
	return NULL;
}

char *cli_docs_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		/* <prefix>/bin/nunatak -> <prefix>/share/doc/nunatak */
		char *dir = readable_dir(xasprintf("%s/../share/doc/nunatak", exe), "docs/cli/run.md");
		if (dir)
			return dir;
	}
	return readable_dir(xstrdup(NUNATAK_SOURCE_DIR), "docs/cli/run.md");
}

void cli_print_docs_line(FILE *f, const char *page)
{
	char *dir = cli_docs_dir();
	char *real = dir ? realpath(dir, NULL) : NULL;
	if (real)
		fprintf(f, "documentation: %s/%s\n", real, page);
	else
		fprintf(f, "documentation: %s in nunatak's source tree (`cmake --install` puts it "
			   "under <prefix>/share/doc/nunatak)\n", page);
	free(real);
	xfree(dir);
}
