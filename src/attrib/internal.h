/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to src/attrib/: the steps attrib_run() chains together. */
#ifndef NUNATAK_ATTRIB_INTERNAL_H
#define NUNATAK_ATTRIB_INTERNAL_H

#include <stddef.h>

#include "tools/symbolizer_parse.h"
#include "model/model.h"

struct attrib_opts;
struct err;

/* What symbolization established for one original Hotspot. */
struct hotspot_attr {
	const struct attrib_chain *chain; /* NULL: not symbolized, left as is */
	enum resolution level;            /* meaningful when chain has frames */
	const char *build_id;             /* from the module's ELF note when the
					     Hotspot has none, else NULL */
	bool fold; /* unnamed: fold into one Hotspot per module, without offset */
};

/*
 * Rewrites p: named Hotspots renamed, fused by physical identity (module +
 * function start, else module + name + file), Measurements remapped and
 * summed, addresses and frames derived for named Hotspots, unused Hotspots
 * dropped (ids are compacted; every table referring to Hotspots is remapped).
 * attr has p->nr_hotspots entries. Returns 0 or -ENOMEM.
 */
int attrib_fuse(struct pivot *p, const struct hotspot_attr *attr, struct err *e);

/*
 * Names the `[kernel.kallsyms]` Hotspots (offsets from `_text`) from kallsyms
 * when this machine allows it, else folds them into one unresolved Hotspot
 * per module as before offsets were kept; adds `kernel-symbols-unavailable`
 * to d when it cannot. A recording executor x receives the symbols the
 * samples fall in (meta.json "kernel_symbols"); under replay they are read
 * from there, never from this machine (an entry without them folds
 * silently, as before). x may be NULL. Returns 0 or a negative error.
 */
struct degradations;
struct executor;
struct attrib_kstore;
int attrib_kernel(struct pivot *p, struct executor *x, const struct attrib_opts *o,
		  struct degradations *d, struct attrib_kstore **st, struct err *e);
/* A kallsyms read from the kernel is stored into the cache on a thread
 * (*st from attrib_kernel, NULL when none runs): joined here, before
 * attribution returns. */
void attrib_kernel_store_join(struct attrib_kstore *st);

struct attrib_module_sums {
	const char *module;
	struct line_checksums sums;
};

/*
 * Adds one extract per (named Hotspot, file) from p's frames: recorded path,
 * source map, unique basename under opts->root; the text withheld, with the
 * reason, when ambiguous, absent or stale (MD5 from ms for the Hotspot's
 * module disagrees with the file). Returns 0 or -ENOMEM.
 */
int attrib_extract_sources(struct pivot *p, const struct attrib_opts *opts,
			   const struct attrib_module_sums *ms, size_t nr_ms, struct err *e);

/* Source map rewrite of path (longest prefix, later entries win ties), or NULL. */
char *attrib_source_map_apply(const struct attrib_opts *opts, const char *path);

#endif
