// SPDX-License-Identifier: BSD-3-Clause
#include "mpi/build.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "mpi/probe_sources.h"
#include "mpi/stack.h"
#include "common/fsutil.h"
#include "tools/mpicc.h"

/* Writes one embedded source unless the cached copy is identical (keeping its
 * time stamp, so nothing rebuilds). */
static int write_source(const char *dir, const struct mpi_probe_source *src, struct err *e)
{
	char *path = fs_join(dir, src->name);
	char *old = NULL;
	size_t len = 0;
	int rc = path ? 0 : -ENOMEM;
	if (rc == 0 && !(fs_read_file(path, src->len + 1, &old, &len) == 0 && len == src->len &&
			 memcmp(old, src->text, len) == 0))
		rc = fs_write_atomic(path, src->text, src->len, e);
	xfree(old);
	xfree(path);
	return rc;
}

static double mtime_of(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9;
}

/* The newest time stamp among the sources an output is built from. */
static double sources_mtime(const char *dir, const char *main_src)
{
	double newest = 0;
	for (size_t i = 0; i < nr_mpi_probe_sources; i++) {
		const char *n = mpi_probe_sources[i].name;
		bool inc = strstr(n, ".inc") != NULL;
		if (strcmp(n, main_src) != 0 && !(inc && strcmp(main_src, "nunatak_mpi.c") == 0))
			continue;
		char *p = fs_join(dir, n);
		double t = p ? mtime_of(p) : -1;
		xfree(p);
		if (t > newest)
			newest = t;
	}
	return newest;
}

/* Compiles one output; *path gets it (owned) or stays NULL with out->reason. */
static int compile(struct executor *x, const char *mpicc, const char *dir, const char *src,
		   const char *name, bool shared, struct mpi_probes *out, char **path,
		   struct err *e)
{
	char *dst = fs_join(dir, name);
	char *tmp = xasprintf("%s/.%s.%d.tmp", dir, name, (int)getpid());
	if (!dst || !tmp) {
		xfree(dst);
		xfree(tmp);
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	}
	double built = mtime_of(dst);
	if (built >= 0 && built >= sources_mtime(dir, src)) {
		*path = dst;
		xfree(tmp);
		return 0;
	}
	const char *argv[MPICC_ARGV_MAX];
	mpicc_argv_build(argv, mpicc, shared, tmp, src);
	struct exec_request rq = {.argv = argv, .cwd = dir,
				  .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 300};
	struct exec_result r = {0};
	int rc = executor__run(x, &rq, &r, e);
	if (rc == 0 && r.exit_code == 0 && rename(tmp, dst) == 0) {
		*path = dst;
		dst = NULL;
		out->built = true;
	} else if (rc == 0 && !out->reason) {
		const char *why = r.err && *r.err ? r.err : r.out ? r.out : "";
		size_t n = strcspn(why, "\n");
		out->reason = r.exit_code == EXEC_NOT_FOUND
				      ? xasprintf("%s was not found", mpicc)
				      : xasprintf("`%s` could not build %s (exit %d): %.*s", mpicc,
						  src, r.exit_code, (int)(n > 200 ? 200 : n), why);
	}
	unlink(tmp);
	exec_result__release(&r);
	xfree(dst);
	xfree(tmp);
	return rc;
}

int mpi_build(struct executor *x, const struct mpi_stack *st, const char *mpicc,
	      struct mpi_probes *out, struct err *e)
{
	*out = (struct mpi_probes){0};
	int no_home = 0;
	char *sub = xasprintf("probes/%s", st->key);
	out->dir = sub ? cache_home_path(sub, &no_home) : NULL;
	xfree(sub);
	if (!out->dir) {
		if (!no_home)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		out->reason = xstrdup("neither XDG_CACHE_HOME nor HOME is set: no probes cache");
		return 0;
	}
	if (fs_mkdir_p(out->dir) != 0) {
		out->reason = xasprintf("cannot create %s", out->dir);
		return 0;
	}
	for (size_t i = 0; i < nr_mpi_probe_sources; i++) {
		struct err we = {0};
		if (write_source(out->dir, &mpi_probe_sources[i], &we) != 0) {
			out->reason = xasprintf("cannot write the probe sources into %s: %s",
						out->dir, we.msg);
			return 0;
		}
	}
	char lib[64], pp[64];
	snprintf(lib, sizeof(lib), "libnunatak-mpi-v%d.so", MPI_PROBES_VERSION);
	snprintf(pp, sizeof(pp), "pingpong-v%d", MPI_PROBES_VERSION);
	int rc = compile(x, mpicc, out->dir, "nunatak_mpi.c", lib, true, out, &out->lib, e);
	if (rc == 0)
		rc = compile(x, mpicc, out->dir, "pingpong.c", pp, false, out, &out->pingpong, e);
	return rc;
}

void mpi_probes__release(struct mpi_probes *p)
{
	xfree(p->dir);
	xfree(p->lib);
	xfree(p->pingpong);
	xfree(p->reason);
	*p = (struct mpi_probes){0};
}
