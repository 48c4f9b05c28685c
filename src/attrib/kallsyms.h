/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pure parser of /proc/kallsyms text ("ffffffff81000000 T _text",
 * "ffffffffc0a01000 t xfs_init [xfs]") for naming kernel samples.
 *
 * Only the core kernel's text symbols (types t/T/w/W, no "[module]") are
 * kept, sorted by address, the last listed of aliases at one address (as
 * perf names them); a symbol's extent runs up to the next greater
 * address, and nothing at or after `_etext` is named. Kernel addresses are
 * handled relative to `_text`, the base ingestion measures its offsets from,
 * so a KASLR slide between recording and attribution does not matter.
 * Addresses all zero (kptr_restrict, or not root) leave `zeros` set.
 */
#ifndef NUNATAK_ATTRIB_KALLSYMS_H
#define NUNATAK_ATTRIB_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

struct ksym {
	uint64_t addr;
	char *name;
};

struct kallsyms {
	struct ksym *v; /* core text symbols, ascending; one per address */
	size_t n;
	char *names;    /* the names v[i].name point into, NUL-separated */
	uint64_t text, etext; /* `_text` and `_etext`, when has_text / has_etext */
	bool has_text, has_etext;
	bool zeros; /* every address read as 0: the real ones are hidden */
};

/*
 * Parses len bytes of kallsyms text into ks (zeroed by the caller).
 * Returns 0, or a negative error in e (a malformed line, with its number;
 * out of memory).
 */
int kallsyms__parse(const char *buf, size_t len, struct kallsyms *ks, struct err *e);

/* The symbol covering `_text + off`, with its extent end (relative to
 * `_text`) in *end, or NULL (no `_text`, a gap, beyond `_etext`). */
const struct ksym *kallsyms__find(const struct kallsyms *ks, uint64_t off, uint64_t *end);

void kallsyms__release(struct kallsyms *ks);

/*
 * nunatak's own cache form of a parsed table (attrib/kernel.c; the format is
 * in kallsyms.c): kallsyms__encode() returns it (malloc'd, *len bytes; NULL
 * when out of memory), kallsyms__decode() reads it back into ks (zeroed by
 * the caller) exactly as encoded: the same symbols, names, `_text`, `_etext`.
 * A malformed or foreign buffer is an error in e, ks left empty.
 */
char *kallsyms__encode(const struct kallsyms *ks, size_t *len);
int kallsyms__decode(const char *buf, size_t len, struct kallsyms *ks, struct err *e);

/*
 * kallsyms__decode() for n offsets only (relative to `_text`, any order,
 * repeats allowed): ks gets the header (`_text`, `_etext`, zeros as decode
 * sets it) and only the symbols kallsyms__find() needs to answer each of
 * them as it would on the whole table: the one covering it and the next
 * (its extent's end). *total is the whole table's count. One pass over
 * the buffer, no copy of its 100 000+ names: a Run with a few kernel
 * samples does not decode the table (~4 ms). The same errors as decode.
 */
int kallsyms__decode_for(const char *buf, size_t len, const uint64_t *offs, size_t n,
			 struct kallsyms *ks, size_t *total, struct err *e);

#endif
