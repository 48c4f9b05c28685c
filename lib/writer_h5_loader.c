/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp_writer__h5 through the plugin libscope_profiler_h5.so (writer_h5.c),
 * opened only when an .h5 is to be written. Looked for next to the shared
 * library itself (so an installed prefix finds its own, wherever it was
 * moved), then in the build directory compiled in, then on the loader's
 * search path. Missing plugin: -ENOTSUP (no .h5).
 */
#include "writer.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "scope_profiler.h"

#define PLUGIN "libscope_profiler_h5.so"

#include "trace.h"

typedef int (*write_fn)(const struct sp_trace *, const char *, const char *);
typedef long (*abi_fn)(void);

static void *try_open(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h)
		sp_log(SP_LOG_DEBUG, "HDF5 plugin: %s", path);
	return h;
}

static void *open_plugin(void)
{
	char path[4096];
	Dl_info info;
	if (dladdr((void *)sp_writer__h5, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		if (slash) {
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - info.dli_fname),
				 info.dli_fname, PLUGIN);
			void *h = try_open(path);
			if (h)
				return h;
		}
	}
#ifdef SP_PLUGIN_DIRS
	static const char *const dirs[] = {SP_PLUGIN_DIRS};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], PLUGIN);
		void *h = try_open(path);
		if (h)
			return h;
	}
#endif
	return try_open(PLUGIN);
}

int sp_writer__h5(const struct sp_trace *tr, const char *path, const char *label)
{
	void *h = open_plugin();
	if (!h) {
		sp_log(SP_LOG_DEBUG, "no .h5 output: %s not found", PLUGIN);
		return -ENOTSUP;
	}
	/* A plugin from another build (say, an older install) would read the
	 * trace with another layout: refuse it rather than crash. */
	abi_fn abi = (abi_fn)dlsym(h, "sp_h5_plugin_abi");
	if (!abi || abi() != SP_TRACE_ABI_KEY) {
		sp_log(SP_LOG_WARN, "no .h5 output: %s is from another build", PLUGIN);
		return -ENOTSUP;
	}
	write_fn fn = (write_fn)dlsym(h, "sp_h5_plugin_write");
	int rc = fn ? fn(tr, path, label) : -ENOTSUP;
	/* Not dlclose()d: HDF5 registers exit handlers of its own. */
	return rc;
}
