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

/*
 * kallsyms text straight to the cache form as it is read: the bytes
 * kallsyms__encode() gives for kallsyms__parse() of the same text, without
 * the 120 000-entry table between them (a first Run's ~10 ms and ~14 MB).
 * The text comes in chunks cut anywhere (kallsyms_enc__feed), in the
 * kernel's order: core symbols by address, never descending (its own
 * lookups bisect them so), aliases one after the other, then modules and
 * BPF. Text in another order is refused (KALLSYMS_UNORDERED: parse the
 * whole text instead).
 *
 * Unless to_end, reading stops (KALLSYMS_COMPLETE) at the first core text
 * symbol at or after `_etext`, once `_text`, `_etext` and a non-zero
 * address are known: in that order no later line can change what
 * kallsyms__find() answers for any offset (nothing at or after `_etext`
 * is named, and that symbol ends the last one before it), so the table
 * is the one of the text read so far, and a Run names exactly what the
 * whole text names; the lines after it (init code, data, modules, BPF: a
 * few % on a kernel without modules, more with) are not formatted by the
 * kernel nor read. (to_end reads every line: the tests' reference.)
 */
enum { KALLSYMS_COMPLETE = 1, KALLSYMS_UNORDERED = 2 };

struct kallsyms_enc {
	struct kallsyms head; /* `_text`, `_etext`, zeros as kallsyms__parse sets them; no v */
	unsigned char *b;     /* room for the header, then the records: len bytes */
	size_t len, cap;
	uint64_t count, prev; /* symbols written (a "__pfx_" pair counts two), the last address */
	size_t lineno, consumed; /* lines and bytes read up to the last line taken */
	char *carry;          /* a line begun in an earlier chunk, carry_len bytes */
	size_t carry_len, carry_cap;
	struct kenc_sym {
		uint64_t addr;
		char *name; /* NUL-terminated copy */
		size_t len, cap;
	} cur, fin; /* cur: the last address (a later alias replaces it); fin: before it */
	bool has_cur, has_fin, to_end;
	int state; /* 0, KALLSYMS_COMPLETE or KALLSYMS_UNORDERED */
};

void kallsyms_enc__init(struct kallsyms_enc *k, bool to_end);
/* Takes len more bytes of text: 0 (more wanted), KALLSYMS_COMPLETE (no
 * later line matters: stop reading), KALLSYMS_UNORDERED, or a negative
 * error in e (a malformed line with its number, as kallsyms__parse says
 * it; out of memory). Once not 0, it stays so and takes nothing more. */
int kallsyms_enc__feed(struct kallsyms_enc *k, const char *buf, size_t len, struct err *e);
/* The text's end (a last line without newline is taken): the cache form
 * in *out (malloc'd, *len bytes; the caller frees it) and 0, or
 * KALLSYMS_UNORDERED, or a negative error in e. k keeps its head. */
int kallsyms_enc__finish(struct kallsyms_enc *k, char **out, size_t *len, struct err *e);
void kallsyms_enc__release(struct kallsyms_enc *k);

#endif
