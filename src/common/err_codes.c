// SPDX-License-Identifier: BSD-3-Clause
#include "common/err_codes.h"

#include <errno.h>
#include <string.h>

#include "common/err.h"

#define ERR_CODE_DEFINE(m, tok, cls) const char m[] = tok;
ERR_CODES(ERR_CODE_DEFINE)

static const struct {
	const char *token;
	enum err_class cls;
} codes[] = {
#define ERR_CODE_ROW(m, tok, cls) {tok, cls},
	ERR_CODES(ERR_CODE_ROW)
};

int err_oom(struct err *e)
{
	return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
}

static int find(const char *code)
{
	for (size_t i = 0; code && i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(codes[i].token, code) == 0)
			return (int)i;
	return -1;
}

bool err_code_known(const char *code)
{
	return find(code) >= 0;
}

enum err_class err_class_of(const char *code)
{
	int i = find(code);
	return i < 0 ? ERR_CLASS_INTERNAL : codes[i].cls;
}

int err_exit_code(const char *code, int otherwise)
{
	return err_class_of(code) == ERR_CLASS_USAGE ? EXIT_USAGE : otherwise;
}
