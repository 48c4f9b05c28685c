// SPDX-License-Identifier: BSD-3-Clause
/* The MPI probes' cache (issue 28): a second build on the same stack
 * compiles nothing; a library or ping-pong program changed in the cache, or
 * handed to another user, or replaced by a symlink, is rebuilt, never
 * preloaded or run. Needs mpicc (skips without it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "mpi/build.h"
#include "mpi/stack.h"
#include "harness.h"
#define TMPDIR_TAG "mpi-build"
#include "tmpdir.h"

static bool build(struct executor *x, const struct mpi_stack *st, struct mpi_probes *p)
{
	struct err e = {0};
	CHECK_INT(mpi_build(x, st, "mpicc", p, &e), 0);
	if (!p->lib || !p->pingpong)
		fprintf(stderr, "probes not built: %s\n", p->reason ? p->reason : "?");
	CHECK(p->lib && p->pingpong);
	return p->built;
}

static void t_tampered(void)
{
	if (system("command -v mpicc >/dev/null 2>&1") != 0)
		SKIP("mpicc missing: the probes cannot be built");
	char *dir = tmpdir();
	setenv("XDG_CACHE_HOME", dir, 1);
	struct mpi_stack st = {"Open MPI", "test", ""};
	snprintf(st.key, sizeof(st.key), "%s", "00secure00test00");
	struct executor *x = executor__new_real();
	struct mpi_probes p;
	CHECK(build(x, &st, &p));
	mpi_probes__release(&p);
	CHECK(!build(x, &st, &p)); /* the control: a hit compiles nothing */
	/* the attacker's library: same name, other bytes */
	FILE *f = fopen(p.lib, "a");
	CHECK(f != NULL);
	fputs("planted", f);
	fclose(f);
	char *lib = xstrdup(p.lib), *pp = xstrdup(p.pingpong);
	mpi_probes__release(&p);
	CHECK(build(x, &st, &p));
	mpi_probes__release(&p);
	/* a symlink to a program of the attacker's choosing */
	CHECK_INT(unlink(pp), 0);
	CHECK_INT(symlink("/bin/true", pp), 0);
	CHECK(build(x, &st, &p));
	struct stat sb;
	CHECK(lstat(pp, &sb) == 0 && S_ISREG(sb.st_mode));
	mpi_probes__release(&p);
	if (geteuid() == 0) { /* another user's file, even with our bytes */
		CHECK_INT(chown(lib, 65534, 65534), 0);
		CHECK(build(x, &st, &p));
		mpi_probes__release(&p);
	}
	unsetenv("XDG_CACHE_HOME");
	executor__free(x);
	xfree(lib);
	xfree(pp);
	done();
}

static const struct test_case cases[] = {
	{"tampered", "a changed, symlinked or another user's probe is rebuilt, never used",
	 t_tampered},
};
TEST_MAIN(cases)
