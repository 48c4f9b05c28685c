// SPDX-License-Identifier: BSD-3-Clause
#include "common/cache_home.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/alloc.h"

char *cache_home_path(const char *sub, int *no_home)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	*no_home = 0;
	if (xdg && *xdg)
		return xasprintf("%s/nunatak/%s", xdg, sub);
	if (home && *home)
		return xasprintf("%s/.cache/nunatak/%s", home, sub);
	*no_home = 1;
	return NULL;
}

double cache_home_read_cost(const char *name, double fallback, bool *measured)
{
	int no_home;
	*measured = false;
	char *path = cache_home_path(name, &no_home);
	FILE *f = path ? fopen(path, "r") : NULL;
	xfree(path);
	double v = 0;
	if (f) {
		if (fscanf(f, "%lf", &v) == 1 && v > 0 && v < 1e-2)
			*measured = true;
		fclose(f);
	}
	return *measured ? v : fallback;
}
