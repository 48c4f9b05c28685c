// SPDX-License-Identifier: BSD-3-Clause
/* srun's MPI plugin as its command line names it (run/ranks_srun.h): both
 * spellings, the last one winning, nothing read past the application's "--"
 * or from the application's own arguments' look-alikes. No process is
 * started. */
#include "harness.h"

#include "run/ranks_srun.h"

static void t_arg(void)
{
	char t[64];
	const char *a[] = {"srun", "-N", "2", "--mpi=pmi2", "-n", "4", NULL};
	CHECK(srun_mpi_arg(a, t, sizeof(t)));
	CHECK_STR(t, "pmi2");
	const char *b[] = {"srun", "--mpi", "pmix_v4", "-n", "4", NULL};
	CHECK(srun_mpi_arg(b, t, sizeof(t)));
	CHECK_STR(t, "pmix_v4");
	const char *c[] = {"srun", "--mpi=pmi2", "--mpi=pmix", NULL};
	CHECK(srun_mpi_arg(c, t, sizeof(t)));
	CHECK_STR(t, "pmix");
	const char *d[] = {"srun", "-n", "4", NULL};
	CHECK(!srun_mpi_arg(d, t, sizeof(t)));
	const char *e[] = {"srun", "-n", "4", "--", "--mpi=pmi2", NULL};
	CHECK(!srun_mpi_arg(e, t, sizeof(t)));
	const char *f[] = {"srun", "--mpi", NULL}; /* a dangling option names nothing */
	CHECK(!srun_mpi_arg(f, t, sizeof(t)));
	CHECK(!srun_mpi_arg(NULL, t, sizeof(t)));
}

static const struct test_case cases[] = {
	{"arg", "srun's --mpi value from its command line", t_arg},
};

TEST_MAIN(cases)
