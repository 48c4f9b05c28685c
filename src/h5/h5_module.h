/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface between nunatak and its HDF5 module (nunatak-hdf5.so, built
 * from src/h5/): the one symbol the loader (regions/trace_h5.c) resolves with
 * dlsym, returning a table of entry points. The module calls back into the
 * executable's exported symbols and shares its structs, so it only works
 * with the executable it was built with: the table carries the version and
 * the sizes of the shared structs, which the loader checks before any call.
 */
#ifndef NUNATAK_H5_H5_MODULE_H
#define NUNATAK_H5_H5_MODULE_H

#include <stddef.h>
#include <stdint.h>

struct err;
struct rank_data;
struct trace_set;
struct console;

#define H5_MODULE_FILE "nunatak-hdf5.so"
#define H5_MODULE_ENTRY "nunatak_h5_module"

struct h5_module_ops {
	size_t sz;			/* sizeof(struct h5_module_ops) */
	const char *nunatak_version;	/* NUNATAK_VERSION it was built for */
	size_t sizeof_trace_set;	/* layout checks of the shared structs */
	size_t sizeof_rank_data;
	int (*list_ranks)(const char *path, int32_t **ranks, size_t *nr, struct err *e);
	int (*load)(struct trace_set *ts, const char *path, int32_t rank, struct rank_data *rd,
		    struct err *e);
	int (*convert)(struct trace_set *ts, const char *out, struct console *con, struct err *e);
	int (*merge)(struct trace_set *runs, size_t nr, const char *const *names, const char *out,
		     struct console *con, struct err *e);
	/* "1.10.8": the libhdf5 the module runs with (H5get_libversion). */
	void (*hdf5_version)(char *buf, size_t n);
};

/* The module's table: static, valid while the module is loaded. */
const struct h5_module_ops *nunatak_h5_module(void);

#endif
