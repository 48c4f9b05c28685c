// SPDX-License-Identifier: BSD-3-Clause
#include "common/degradation_kinds.h"

#include <stddef.h>
#include <string.h>

#define DEG_KIND_DEFINE(m, name, strict, remedy) \
	const char m[] = name;                   \
	const char m##_REMEDY[] = remedy;
DEGRADATION_KINDS(DEG_KIND_DEFINE)

static const struct {
	const char *name;
	bool strict;
	const char *remedy;
} kinds[] = {
#define DEG_KIND_ROW(m, name, strict, remedy) {name, strict, remedy},
	DEGRADATION_KINDS(DEG_KIND_ROW)
};

static int find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool degradation_kind_known(const char *name)
{
	return find(name) >= 0;
}

bool degradation_kind_strict(const char *name)
{
	int i = find(name);
	return i < 0 || kinds[i].strict;
}

const char *degradation_kind_remedy(const char *name)
{
	int i = find(name);
	return i < 0 ? NULL : kinds[i].remedy;
}
