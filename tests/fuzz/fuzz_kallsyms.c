// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: /proc/kallsyms text into the sorted kernel symbol table, and
// straight into the cache form as read (kallsyms_enc): read to the end, the
// bytes kallsyms__encode(kallsyms__parse()) gives, however the text is cut,
// and the same error; stopped past `_etext`, the same answers as the whole
// text for text in the kernel's order.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/kallsyms.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data through kallsyms_enc in chunks of `chunk` bytes: its status, the
 * bytes in *out (malloc'd) when 0. */
static int stream(const uint8_t *data, size_t size, size_t chunk, bool to_end, char **out,
		  size_t *len, struct err *e)
{
	struct kallsyms_enc k;
	kallsyms_enc__init(&k, to_end);
	int rc = 0;
	for (size_t at = 0; rc == 0 && at < size; at += chunk)
		rc = kallsyms_enc__feed(&k, (const char *)data + at,
					size - at < chunk ? size - at : chunk, e);
	*out = NULL;
	if (rc >= 0 && rc != KALLSYMS_UNORDERED)
		rc = kallsyms_enc__finish(&k, out, len, e);
	kallsyms_enc__release(&k);
	return rc;
}

static void same_answers(const struct kallsyms *whole, const char *enc, size_t len)
{
	struct kallsyms part = {0};
	struct err e = {0};
	if (kallsyms__decode(enc, len, &part, &e) != 0)
		__builtin_trap(); /* our own bytes */
	part.zeros = whole->zeros;
	for (size_t i = 0; i < whole->n + 2; i++) {
		uint64_t o = i < whole->n ? whole->v[i].addr - whole->text
					  : whole->etext - whole->text - (i - whole->n);
		for (int d = -1; d <= 1; d++) {
			uint64_t e1 = 0, e2 = 0;
			const struct ksym *x = kallsyms__find(whole, o + (uint64_t)d, &e1);
			const struct ksym *y = kallsyms__find(&part, o + (uint64_t)d, &e2);
			if ((x == NULL) != (y == NULL) ||
			    (x && (x->addr != y->addr || e1 != e2 || strcmp(x->name, y->name))))
				__builtin_trap(); /* stopped early: named as the whole text */
		}
	}
	kallsyms__release(&part);
}

/* The stream against the parser on the same text. */
static void check_stream(const uint8_t *data, size_t size, const struct kallsyms *whole,
			 int prc, const struct err *pe)
{
	size_t chunk = size ? 1 + data[0] % 61 : 1, len = 0, elen = 0;
	char *got = NULL;
	struct err e = {0};
	int rc = stream(data, size, chunk, true, &got, &len, &e);
	if (rc < 0 && (prc == 0 || strcmp(e.msg, pe->msg)))
		__builtin_trap(); /* a malformed line: the parser's error */
	if (rc == 0) {
		char *want = prc == 0 ? kallsyms__encode(whole, &elen) : NULL;
		if (!want || elen != len || memcmp(want, got, len))
			__builtin_trap(); /* read to the end: the same bytes */
		free(want);
	}
	free(got);
	if (rc != 0 || prc != 0)
		return; /* not in the kernel's order, or malformed: no early stop */
	if (stream(data, size, chunk + 1, false, &got, &len, &e) != 0)
		__builtin_trap();
	same_answers(whole, got, len);
	free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms ks = {0};
	struct err e = {0};
	int prc = kallsyms__parse((const char *)data, size, &ks, &e);
	check_stream(data, size, &ks, prc, &e);
	if (prc == 0) {
		for (size_t i = 1; i < ks.n; i++)
			if (ks.v[i - 1].addr >= ks.v[i].addr)
				__builtin_trap(); /* sorted, one name per address */
		uint64_t end = 0;
		for (size_t i = 0; ks.has_text && i < ks.n && i < 64; i++) {
			uint64_t off = ks.v[i].addr - ks.text;
			const struct ksym *s = kallsyms__find(&ks, off, &end);
			if (s && (s->addr > ks.text + off || end <= off))
				__builtin_trap(); /* the covering symbol starts at or before, ends after */
		}
	} else if (ks.n || ks.v) {
		__builtin_trap(); /* an error leaves nothing behind */
	}
	kallsyms__release(&ks);
	return 0;
}
