/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symbolization for `regions lines`: one batched call per module
 * (llvm-symbolizer, else GNU addr2line), addresses on stdin, through the
 * execution boundary. argv and parsing are the adapters' (tools/symbolizer.h),
 * discovery is tools/locate.h, the ELF reader attrib/elf.h: no second copy.
 */
#ifndef NUNATAK_REGIONS_LINES_SYMBOLIZE_H
#define NUNATAK_REGIONS_LINES_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct attrib_tools;
struct attrib_sym_env;
struct debug_copies;
struct err;
struct executor;

struct sym_loc {
	char *file;     /* NULL: no line information */
	int line;       /* 0 when unknown */
	char *function; /* NULL when unknown */
};

/* Symbolizes n ELF virtual addresses of `module` (sorted, unique) into out[n]
 * (caller releases each with sym_loc__release). Addresses the tool cannot
 * place stay unknown. Fails only when the tool cannot be run. */
int lines_symbolize(struct executor *x, const struct attrib_tools *t, const char *module,
		    const uint64_t *vaddrs, size_t n, struct sym_loc *out, struct debug_copies *dc,
		    struct err *e);
void sym_loc__release(struct sym_loc *l);

/* One module's share of lines_symbolize_many(). */
struct lines_job {
	const char *module;
	const uint64_t *vaddrs; /* sorted, unique */
	size_t n;
	struct sym_loc *out;    /* [n], zeroed first */
	int rc;                 /* 0, or < 0: the tool failed on this module */
};

/* What a Run's symbolizer calls share (NULL or either field NULL: none):
 * its decompressed debug copies (attrib/debug_copy.h), used, scheduled and
 * made as for its Hotspots, and its environment edits ([debuginfod],
 * attrib/attrib.h), as the Hotspots' calls have them. */
struct lines_run {
	struct debug_copies *copies;
	const struct attrib_sym_env *env;
};

/* Frees jobs[0..nj) with what each owns (vaddrs, out and its locations),
 * then the array; accepts NULL. For callers that allocate vaddrs and out. */
void lines_jobs__free(struct lines_job *jobs, size_t nj);

/* lines_symbolize() over several modules as one executor batch. cached: the
 * calls are cacheable address by address (a warm Run starts no process)
 * and share one process where the tool allows (exec/merge.c); run: the
 * Run's copies and environment, or NULL. Returns < 0
 * only when nothing could run (no tool, out of memory); each job's rc says
 * whether its module was answered. */
int lines_symbolize_many(struct executor *x, const struct attrib_tools *t, struct lines_job *jobs,
			 size_t nj, bool cached, const struct lines_run *run, struct err *e);

/* The ELF virtual address of a sampled runtime address: address - load for
 * a PIE or shared object (the load address is where vaddr 0 lands); for a
 * non-PIE executable (ET_EXEC, loaded at its link address) the address itself
 * when the difference falls outside every PT_LOAD. `elf` may be NULL
 * (unreadable module): address - load. */
struct elf_info;
uint64_t lines_vaddr(const struct elf_info *elf, uint64_t address, uint64_t load);

#endif
