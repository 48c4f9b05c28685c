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

/* What an output is built from: the compiler, the kind of output and the
 * embedded sources it includes (the main one, and the .inc files for the
 * library). A cached output is reused only when its seal matches this and
 * its bytes (common/cache_home.h): another user's file there is a miss. */
static char *recipe_of(const char *mpicc, const char *main_src, bool shared, size_t *len)
{
	char *r = xasprintf("mpi-probe v%d\n%s\n%s\n", MPI_PROBES_VERSION, mpicc,
			    shared ? "shared" : "executable");
	for (size_t i = 0; r && i < nr_mpi_probe_sources; i++) {
		const struct mpi_probe_source *ps = &mpi_probe_sources[i];
		bool inc = strstr(ps->name, ".inc") != NULL;
		if (strcmp(ps->name, main_src) != 0 && !(inc && strcmp(main_src, "nunatak_mpi.c") == 0))
			continue;
		char *next = xasprintf("%s%s\n%zu\n%.*s", r, ps->name, ps->len, (int)ps->len,
				       ps->text);
		xfree(r);
		r = next;
	}
	*len = r ? strlen(r) : 0;
	return r;
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
	size_t rlen = 0;
	char *recipe = recipe_of(mpicc, src, shared, &rlen);
	if (recipe && !cache_sealed_file_problem(dst, recipe, rlen)) {
		*path = dst;
		xfree(tmp);
		xfree(recipe);
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
		if (recipe) /* unsealed: used now, rebuilt next time */
			(void)cache_seal_file(dst, recipe, rlen);
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
	xfree(recipe);
	xfree(dst);
	xfree(tmp);
	return rc;
}

int mpi_build(struct executor *x, const struct mpi_stack *st, const char *mpicc,
	      struct mpi_probes *out, struct err *e)
{
	*out = (struct mpi_probes){0};
	int no_home = 0;
	char *sub = xasprintf("probes/%s", st->key), *why = NULL;
	out->dir = sub ? cache_home_dir(sub, &no_home, &why) : NULL;
	xfree(sub);
	if (!out->dir) {
		if (!no_home)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		out->reason = why ? why
			      : xstrdup("neither XDG_CACHE_HOME nor HOME is set: no probes cache");
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
