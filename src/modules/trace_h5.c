// SPDX-License-Identifier: BSD-3-Clause
/*
 * trace_h5.h by way of the HDF5 module (modules/h5_module.h, src/hdf5/): libhdf5 pulls ~30
 * libraries into a process (curl, gnutls, krb5, ldap, ssh ...), ~4 ms of
 * dynamic loading that every nunatak invocation paid before main() while
 * most never touch an .h5. The executable does not link it; each call here
 * opens the module, checks it and calls through its table.
 *
 * Every call that reads or writes an .h5 runs in a child process: the
 * functions of trace_h5.h but trace_h5_support() are regions/h5_job.c,
 * which forks (exec_isolate) and calls h5_module_call() below in the
 * child: libhdf5 is not ours and crashes or loops on some corrupt files;
 * the module is loaded there, never in nunatak itself.
 *
 * No state is kept between calls, so nothing global of ours exists: the
 * module is opened with RTLD_NODELETE, so dlclose() only drops the reference
 * and the next dlopen() finds it already mapped (a lookup by name, a few
 * microseconds against the milliseconds of an HDF5 call); libhdf5 is never
 * unloaded behind an open file and finishes at exit as a linked one would.
 */
#include "modules/trace_h5.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "modules/h5_job.h"
#include "modules/h5_module.h"

/* The installed layout: bin/nunatak, lib/nunatak/nunatak-hdf5.so. */
#define H5_MODULE_INSTALLED_DIR "../lib/nunatak"
#define H5_MODULE_REMEDY "reinstall nunatak (or rebuild it with libhdf5-dev installed)"

struct h5_module {
	void *handle;
	const struct h5_module_ops *ops;
	char path[PATH_MAX];
};

#ifndef HAVE_HDF5

static int module_open(struct h5_module *m, struct err *e)
{
	m->handle = NULL;
	m->ops = NULL;
	return err_set(e, -ENOTSUP, ERR_REGIONS_NO_HDF5,
		       "this nunatak was built without HDF5: rebuild with libhdf5-dev installed, "
		       "or use the .spt traces directly");
}

#else

/* dlerror()'s text, without the module's path when it starts with it (the
 * message names the path already). */
static const char *load_error(const char *path)
{
	const char *msg = dlerror();
	size_t n = strlen(path);
	if (!msg)
		return "unknown dlopen failure";
	if (strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
		msg += n + 2;
	return msg;
}

static int module_check(struct h5_module *m, struct err *e)
{
	const struct h5_module_ops *(*entry)(void);
	*(void **)&entry = dlsym(m->handle, H5_MODULE_ENTRY); /* POSIX's blessed cast */
	const struct h5_module_ops *ops = entry ? entry() : NULL;
	if (!ops || ops->sz != sizeof(*ops) || strcmp(ops->nunatak_version, NUNATAK_VERSION) != 0)
		return err_set(e, -ENOEXEC, ERR_REGIONS_NO_HDF5,
			       "%s is not the HDF5 module of this nunatak %s (%s): " H5_MODULE_REMEDY,
			       m->path, NUNATAK_VERSION,
			       !entry ? "no " H5_MODULE_ENTRY "()" : "built from other sources");
	m->ops = ops;
	return 0;
}

static int module_dlopen(struct h5_module *m, struct err *e)
{
	/* Lazy for libhdf5's chain, as when it was linked; the module itself is
	 * linked -z now, so a symbol the executable lacks fails here. */
	m->handle = dlopen(m->path, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	if (!m->handle)
		return err_set(e, -ENOENT, ERR_REGIONS_NO_HDF5,
			       "cannot load the HDF5 module %s: %s: " H5_MODULE_REMEDY, m->path,
			       load_error(m->path));
	int rc = module_check(m, e);
	if (rc) {
		dlclose(m->handle);
		m->handle = NULL;
	}
	return rc;
}

/* NUNATAK_HDF5_MODULE (a file) if set, else beside the executable (the
 * build tree), else the installed layout. A module found but not loadable
 * is reported as such, never skipped for the next place. */
static int module_open(struct h5_module *m, struct err *e)
{
	m->handle = NULL;
	m->ops = NULL;
	const char *env = getenv("NUNATAK_HDF5_MODULE");
	if (env && *env) {
		snprintf(m->path, sizeof(m->path), "%s", env);
		return module_dlopen(m, e);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		int err = n < 0 ? errno : EIO;
		return err_set(e, -err, ERR_REGIONS_NO_HDF5,
			       "cannot find the HDF5 module: /proc/self/exe unreadable (%s); set "
			       "NUNATAK_HDF5_MODULE to its path",
			       strerror(err));
	}
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	static const char *const dirs[] = {"", "/" H5_MODULE_INSTALLED_DIR};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int w = snprintf(m->path, sizeof(m->path), "%s%s/" H5_MODULE_FILE, exe, dirs[i]);
		if (w > 0 && (size_t)w < sizeof(m->path) && access(m->path, F_OK) == 0)
			return module_dlopen(m, e);
	}
	return err_set(e, -ENOENT, ERR_REGIONS_NO_HDF5,
		       "the HDF5 module " H5_MODULE_FILE " is in neither %s/ nor %s/" H5_MODULE_INSTALLED_DIR
		       "/: " H5_MODULE_REMEDY ", or use the .spt traces directly",
		       exe, exe);
}

#endif

static void module_close(struct h5_module *m)
{
	if (m->handle)
		dlclose(m->handle);
	m->handle = NULL;
}

/* ---- every call runs in a child process (modules/h5_job.h) ---- */

int h5_module_call(struct h5_job *j, struct err *e)
{
	struct h5_module m;
	int rc = module_open(&m, e);
	if (rc) {
		err_prefix(e, "%s", j->path);
		return rc;
	}
	switch (j->kind) {
	case H5_JOB_RANKS:
		rc = m.ops->list_ranks(j->path, &j->ranks, &j->nr_ranks, e);
		break;
	case H5_JOB_LOAD:
		rc = m.ops->load(j->ts, j->path, j->rank, j->rd, e);
		break;
	case H5_JOB_COUNTERS:
		rc = m.ops->counters(j->rc, j->ts, j->path, j->rank, e);
		break;
	case H5_JOB_CONVERT:
		rc = m.ops->convert(j->ts, j->out, j->con, e);
		break;
	case H5_JOB_MERGE:
		rc = m.ops->merge(j->runs, j->nr_runs, j->names, j->out, j->con, e);
		break;
	}
	module_close(&m);
	return rc;
}

int trace_h5_support(char *detail, size_t n, struct err *e)
{
	struct h5_module m;
	int rc = module_open(&m, e);
	if (rc)
		return rc;
	char version[32];
	m.ops->hdf5_version(version, sizeof(version));
	snprintf(detail, n, "HDF5 %s, loaded from %s", version, m.path);
	module_close(&m);
	return 0;
}
