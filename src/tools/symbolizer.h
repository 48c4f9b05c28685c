/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One call of the symbolizer attribution located (tools/locate.h): its argv
 * and stdin, built by the program's own adapter (tools/llvm_symbolizer.h,
 * tools/addr2line.h), and its output parsed (tools/symbolizer_parse.h).
 * Attribution (attrib/tool_calls.c) and `regions lines`
 * (regions/lines_symbolize.c) both go through here; they never spell a
 * symbolizer's options. Nothing here spawns: callers run the argv through
 * the executor.
 */
#ifndef NUNATAK_TOOLS_SYMBOLIZER_H
#define NUNATAK_TOOLS_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct attrib_chains;
struct attrib_tools;
struct err;

/* Up to this many addresses go on the command line, the shape the corpus
 * recorded (`llvm-symbolizer --output-style=JSON --obj=M 0x… …`); beyond it
 * they are fed on stdin, one per line, still one process per module: LLVM
 * 14 answers twice as fast that way (measured: its argv mode builds one JSON
 * array for the whole batch), and argv stays far below ARG_MAX. Both output
 * shapes parse the same. */
#define SYMBOLIZER_ADDRS_ON_ARGV 1024

struct symbolizer_call {
	const char **argv;      /* NULL-terminated; the strings live in the call */
	const char *stdin_data; /* the addresses, one per line, or NULL (on argv) */
	size_t stdin_len;
	bool per_line;          /* stdin holds one address a line and stdout answers
				   one line each (llvm-symbolizer's JSON): cacheable
				   address by address (exec/cache.c) */
	int merge_slot;         /* argv[merge_slot] may be dropped to answer many
				   modules in one process, each stdin line then
				   prefixed by merge_prefix (exec.h), or 0 */
	const char *merge_prefix;
	char *owned_[3];        /* storage of argv's strings and the prefix */
};

/* The addresses as "0x…" strings: into argv[0..n) (small batches, when
 * argv_ok) else as stdin lines. Used by the adapters. 0 or -ENOMEM. */
int symbolizer_call__addresses(struct symbolizer_call *k, size_t at, const uint64_t *addrs,
			       size_t n, bool argv_ok);

/* The call of t's symbolizer over addrs[0..n) of module (argv_ok: small
 * batches may go on argv). 0, or -ENOMEM (k released), -EINVAL without a
 * symbolizer. */
int symbolizer_call__init(struct symbolizer_call *k, const struct attrib_tools *t,
			  const char *module, const uint64_t *addrs, size_t n, bool argv_ok);
void symbolizer_call__release(struct symbolizer_call *k);

/* Its standard output (text[0..len)) appended to out as chains. 0, or
 * -EINVAL / -ENOMEM with e. */
int symbolizer__parse(const struct attrib_tools *t, const char *text, size_t len,
		      struct attrib_chains *out, struct err *e);

#endif
