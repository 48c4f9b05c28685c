// SPDX-License-Identifier: BSD-3-Clause
/* The launch split over arbitrary command lines: words separated by spaces
 * (or NULs); the plan must always partition the command, whatever the
 * launchers, options, `--` and `=` forms in it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "launch/split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Deterministic: a token "resolves" when it starts with '.' or '/'. */
static bool resolve(const char *tok, void *ctx)
{
	(void)ctx;
	return tok[0] == '.' || tok[0] == '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *buf = malloc(size + 1);
	char *argv[257];
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	size_t n = 0;
	for (char *p = buf, *end = buf + size; p < end && n < 256;) {
		while (p < end && (*p == ' ' || *p == '\0'))
			p++;
		if (p >= end)
			break;
		argv[n++] = p;
		while (p < end && *p != ' ' && *p != '\0')
			p++;
		*p++ = '\0';
	}
	argv[n] = NULL;
	struct launch_plan plan;
	for (int with = 0; with < 2; with++) {
		if (launch_split_with(argv, with ? resolve : NULL, NULL, &plan, NULL) != 0) {
			if (n != 0)
				abort();
			continue;
		}
		if (plan.nr_prefix + plan.nr_app != n || plan.app != argv + plan.nr_prefix)
			abort();
		if ((plan.nr_app == 0) != (plan.target == NULL))
			abort();
		const char *shim[] = {"/x/nunatak", "rank-shim", "--", NULL};
		char **w = launch_plan__wrap(&plan, shim);
		if (plan.nr_app && w && w[plan.nr_prefix + 3] != plan.app[0])
			abort();
		xfree(w);
	}
	free(buf);
	return 0;
}
