// SPDX-License-Identifier: BSD-3-Clause
#include "common/cache_home.h"

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
