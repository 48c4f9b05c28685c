// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the boot's kallsyms table that perf reads in its own mount
// namespace (collect/perf_kallsyms.c), read back from the tool cache but
// never trusted: perf_kallsyms_table_valid() on any bytes, the input's
// first line standing for the kernel's own _text line. Whenever it says
// valid, that line is in the table whole, names _text, and has a non-zero
// address; an _etext line is there too.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/perf_kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A whole line of text (len bytes) equal to line, or naming `name` as its
 * third field when line is NULL. */
static int has_line(const char *text, size_t len, const char *line, const char *name)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - (text + i)) : len - i;
		const char *l = text + i;
		if (line && ll == strlen(line) && !memcmp(l, line, ll))
			return 1;
		size_t nn = name ? strlen(name) : 0;
		if (!line && ll > nn + 1 && l[ll - nn - 1] == ' ' && !memcmp(l + ll - nn, name, nn))
			return 1;
		i += ll + 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t kl = nl ? (size_t)(nl - (const char *)data) : size;
	char *kernel = malloc(kl + 1);
	if (!kernel)
		return 0;
	memcpy(kernel, data, kl);
	kernel[kl] = '\0';
	const char *text = nl ? nl + 1 : (const char *)data + size;
	size_t len = (size_t)((const char *)data + size - text);
	/* the table's own bytes only: a copy of exactly len bytes, no NUL after */
	char *copy = malloc(len ? len : 1);
	if (copy) {
		memcpy(copy, text, len);
		if (perf_kallsyms_table_valid(copy, len, kernel)) {
			/* kernel is a C string: the first line up to any NUL in it */
			if (!has_line(copy, len, kernel, NULL) ||
			    !has_line(copy, len, NULL, "_etext") || kernel[0] == ' ' ||
			    strspn(kernel, "0") == strcspn(kernel, " "))
				abort();
		}
		(void)perf_kallsyms_table_valid(copy, len, NULL);
	}
	free(copy);
	free(kernel);
	return 0;
}
