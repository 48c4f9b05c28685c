// SPDX-License-Identifier: BSD-3-Clause
/* Fuzz target: the call-stack ladder's parsers of tool text (tools/ldd.h,
 * tools/objdump.h, with collect/stacks.h's limits).
 * The first byte picks one: `ldd` output, `objdump -t`/`-T` symbol tables,
 * an `objdump -d` prologue; the rest is the text. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/stacks.h"
#include "common/alloc.h"
#include "tools/ldd.h"
#include "tools/objdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ldd(const char *text)
{
	size_t n = 0;
	char **libs = ldd__parse(text, &n);
	if ((libs == NULL) != (n == 0))
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		if (!libs[i] || !*libs[i])
			__builtin_trap();
		xfree(libs[i]);
	}
	xfree(libs);
}

static void symbols(const char *text)
{
	uint64_t out[STACKS_SYMBOLS_PER_MODULE];
	size_t n = objdump__parse_symbols(text, STACKS_MIN_SYMBOL, STACKS_SYMBOLS_PER_MODULE, out);
	if (n > STACKS_SYMBOLS_PER_MODULE)
		__builtin_trap();
	for (size_t i = 1; i < n; i++)
		if (out[i] == out[i - 1])
			__builtin_trap(); /* deduplicated by address (adjacent check) */
	(void)objdump__parse_symbols(text, 0, 1, out);
}

static bool any_branch(enum objdump_branch kind, uint64_t at, uint64_t target, void *ctx)
{
	(void)ctx;
	return kind != OBJDUMP_INDIRECT || at != target;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = xstrndup((const char *)data + 1, size - 1); /* the parsers take C strings */
	if (!text)
		return 0;
	switch (data[0] % 3) {
	case 0:
		ldd(text);
		break;
	case 1:
		symbols(text);
		break;
	default:
		(void)objdump__fp_prologue(text, STACKS_PROLOGUE_INSNS);
		(void)objdump__branches(text, 0x1000, 0x2000, any_branch, NULL);
		break;
	}
	xfree(text);
	return 0;
}
