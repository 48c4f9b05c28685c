/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to attrib.c and tool_calls.c: the state of one attrib_run() (the
 * modules to symbolize, their answers) and the helpers both use.
 */
#ifndef NUNATAK_ATTRIB_ATTRIB_CTX_H
#define NUNATAK_ATTRIB_ATTRIB_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attrib/attrib.h"
#include "attrib/elf.h"
#include "exec/exec.h" /* json_t */
#include "attrib/internal.h"
#include "tools/symbolizer_parse.h"

struct pivot;
struct executor;
struct attrib_tools;
struct attrib_opts;
struct degradations;
struct err;
struct exec_result;

struct mod {
	char *path;
	double weight;
	bool stack_only;
	uint64_t *offs; /* original module-relative offsets, sorted, unique */
	size_t nr_offs, cap_offs;
	uint64_t *addrs; /* the symbolizer address of each offset */
	uint64_t *sorted; /* distinct symbolizer addresses, ascending (nr_sorted) */
	size_t nr_sorted;
	const struct attrib_chain **chain; /* per offset, NULL when unanswered */
	struct attrib_chains answers;
	const char *build_id; /* as ingestion recorded it (borrowed from the pivot), or NULL */
	struct elf_info elf;
	bool readable, failed, has_bare, sections_known;
	struct module_sections sec;
	struct attrib_module_sums sums;
};

struct ctx {
	struct pivot *p;
	struct executor *x;
	const struct attrib_tools *tools;
	const struct attrib_opts *o;
	struct degradations *d;
	struct err *e;
	struct mod *mods;
	size_t nr_mods;
	struct attrib_sym_env env; /* the symbolizer calls' environment edits */
	/* The extent rule's verdicts, for a recording (enforce_extents):
	 * {module: [[address, start], ...]}, start -1 when the name was
	 * dropped; NULL while none. */
	json_t *extents;
};

void attrib_degrade(struct ctx *c, const char *name, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Last line of a tool's stderr, for a degradation message. */
const char *attrib_stderr_tail(const struct exec_result *r, char *buf, size_t n);
void attrib_mod_unreadable(struct ctx *c, struct mod *m, const char *why);
int attrib_u64_cmp(const void *a, const void *b);
/* A module a symbolizer can read: an absolute path, not /proc or anonymous. */
bool attrib_symbolizable(const char *module);
const struct attrib_chain *attrib_chain_for(struct ctx *c, const char *module, uint64_t off,
					    struct mod **mod_out);
bool attrib_chain_has_file(const struct attrib_chain *ch);

/* The symbolizer calls of every module (tool_calls.c), then, once the
 * answers are in, `llvm-readelf -S` and `llvm-dwarfdump --debug-line` where
 * they can matter. Each step issues its calls in module order and runs them
 * through one executor batch. Return 0 or a negative error in c->e. */
int attrib_symbolize_all(struct ctx *c);
int attrib_inspect_and_sums(struct ctx *c);

#endif
