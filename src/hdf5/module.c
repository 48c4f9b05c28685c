// SPDX-License-Identifier: BSD-3-Clause
/* The entry point of nunatak-hdf5.so: the table the loader resolves. Built
 * with hidden visibility, so this is the module's only exported symbol. */
#include "modules/h5_module.h"

#include <hdf5.h>
#include <stdio.h>

#include "build_config.h"
#include "hdf5/hdf5_trace.h"
#include "regions/trace_set.h"

static void hdf5_version(char *buf, size_t n)
{
	unsigned maj = 0, min = 0, rel = 0;
	if (H5get_libversion(&maj, &min, &rel) < 0)
		snprintf(buf, n, "unknown");
	else
		snprintf(buf, n, "%u.%u.%u", maj, min, rel);
}

static const struct h5_module_ops ops = {
	.sz = sizeof(struct h5_module_ops),
	.nunatak_version = NUNATAK_VERSION,
	.list_ranks = h5_read_list_ranks,
	.load = h5_read_load,
	.convert = h5_write_convert,
	.merge = h5_write_merge,
	.counters = h5_read_counters,
	.hdf5_version = hdf5_version,
};

__attribute__((visibility("default"))) const struct h5_module_ops *nunatak_h5_module(void)
{
	size_t ts = 0, rd = 0;
	trace_set__sizes(&ts, &rd);
	return ts == sizeof(struct trace_set) && rd == sizeof(struct rank_data) ? &ops : NULL;
}
