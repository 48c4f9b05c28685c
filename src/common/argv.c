// SPDX-License-Identifier: BSD-3-Clause
#include "common/argv.h"

#include <string.h>

#include "common/alloc.h"

size_t argv_count(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

char *argv_join(const char *const *v)
{
	size_t n = argv_count(v), len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *s = xmalloc(len);
	if (!s)
		return NULL;
	char *p = s;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = ' ';
		size_t l = strlen(v[i]);
		memcpy(p, v[i], l);
		p += l;
	}
	*p = '\0';
	return s;
}
