// SPDX-License-Identifier: BSD-3-Clause
#include "tools/ldd.h"

#include <ctype.h>
#include <string.h>

#include "common/alloc.h"
#include "common/text.h"

void ldd__argv(const char *argv[LDD_ARGC + 1], const char *target)
{
	argv[0] = "ldd";
	argv[1] = target;
	argv[2] = NULL;
}

char **ldd__parse(const char *text, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	const char *p = text ? text : "";
	while (*p) {
		const char *l;
		size_t len = text_next_line(&p, &l);
		const char *arrow = memmem(l, len, "=> /", 4);
		if (!arrow)
			continue;
		const char *path = arrow + 3, *end = path;
		while (end < l + len && !isspace((unsigned char)*end))
			end++;
		if (xgrow((void **)&v, &cap, *n + 2, sizeof(*v)) < 0)
			break;
		v[*n] = xstrndup(path, (size_t)(end - path));
		if (v[*n])
			(*n)++;
	}
	return v;
}

