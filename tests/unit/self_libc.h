// SPDX-License-Identifier: BSD-3-Clause
/*
 * For tests that read a real library: the path of the libc this test
 * process has mapped (from /proc/self/maps), into out. Include after
 * harness.h.
 */
#ifndef NUNATAK_TEST_SELF_LIBC_H
#define NUNATAK_TEST_SELF_LIBC_H

#include <stdio.h>
#include <string.h>

static inline void self_libc(char *out, size_t cap)
{
	char line[4096];
	out[0] = '\0';
	FILE *maps = fopen("/proc/self/maps", "r");
	CHECK(maps);
	while (maps && !out[0] && fgets(line, sizeof(line), maps)) {
		char *p = strchr(line, '/'), *nl = p ? strchr(p, '\n') : NULL;
		if (nl)
			*nl = '\0';
		if (p && strstr(p, "/libc.so"))
			snprintf(out, cap, "%s", p);
	}
	if (maps)
		fclose(maps);
	CHECK(out[0]);
}

#endif
