/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loaded modules (executable, shared objects, vDSO) with their load
 * bias and PT_LOAD ranges, from dl_iterate_phdr, so a sampled address maps
 * to (module, address - bias): the ELF virtual address symbolizers take.
 */
#ifndef SP_MODULES_H
#define SP_MODULES_H

#include <stddef.h>
#include <stdint.h>

struct sp_module_out;

struct sp_range {
	uint64_t lo, hi; /* [lo, hi) absolute */
	int32_t module;
};

struct sp_modules {
	struct sp_module_out *mods;
	size_t nr, cap;
	struct sp_range *ranges; /* sorted by lo */
	size_t nr_ranges, cap_ranges;
};

/* Snapshots the modules loaded now. 0 or -ENOMEM. */
int sp_modules__load(struct sp_modules *m);
/* Module index containing @p addr, or -1. */
int32_t sp_modules__find(const struct sp_modules *m, uint64_t addr);
/* Moves the module array to *out (caller frees each path and the array);
 * returns the count. */
size_t sp_modules__take(struct sp_modules *m, struct sp_module_out **out);
void sp_modules__exit(struct sp_modules *m);

#endif
