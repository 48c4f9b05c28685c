/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface between nunatak and its HDF5 module (nunatak-hdf5.so, built
 * from src/hdf5/): the one symbol the loader (modules/trace_h5.c) resolves
 * with dlsym, returning a table of entry points. The module calls back into
 * the executable's exported symbols and shares its structs, so it only works
 * with the executable it was built with: the entry returns NULL when the
 * executable's struct trace_set or rank_data differ from the module's
 * (trace_set__sizes()), and the loader checks the table's size and version.
 */
#ifndef NUNATAK_MODULES_H5_MODULE_H
#define NUNATAK_MODULES_H5_MODULE_H

#include <stddef.h>
#include <stdint.h>

struct err;
struct rank_data;
struct trace_set;
struct console;
struct region_counters;

#define H5_MODULE_FILE "nunatak-hdf5.so"
#define H5_MODULE_ENTRY "nunatak_h5_module"

struct h5_module_ops {
	size_t sz;			/* sizeof(struct h5_module_ops) */
	const char *nunatak_version;	/* NUNATAK_VERSION it was built for */
	int (*list_ranks)(const char *path, int32_t **ranks, size_t *nr, struct err *e);
	int (*load)(struct trace_set *ts, const char *path, int32_t rank, struct rank_data *rd,
		    struct err *e);
	int (*convert)(struct trace_set *ts, const char *out, struct console *con, struct err *e);
	int (*merge)(struct trace_set *runs, size_t nr, const char *const *names, const char *out,
		     struct console *con, struct err *e);
	int (*counters)(struct region_counters *rc, struct trace_set *ts, const char *path,
			int32_t rank, struct err *e);
	/* "1.10.8": the libhdf5 the module runs with (H5get_libversion). */
	void (*hdf5_version)(char *buf, size_t n);
};

/* The module's table (static, valid while the module is loaded), or NULL
 * when the executable's shared structs differ from the module's. */
const struct h5_module_ops *nunatak_h5_module(void);

#endif
