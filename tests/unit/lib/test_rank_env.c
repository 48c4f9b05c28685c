/* SPDX-License-Identifier: BSD-3-Clause */
#include "harness.h"
#include "rank_env.h"

/* A fake environment: "NAME=value" strings, NULL-terminated. */
static const char *fake_getenv(const char *name, void *ctx)
{
	const char *const *env = ctx;
	size_t n = strlen(name);
	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static struct sp_rank_info detect(const char *const *env)
{
	struct sp_rank_info info;
	sp_rank_env__detect(fake_getenv, (void *)env, &info);
	return info;
}

static void t_none(void)
{
	const char *env[] = {"HOME=/root", NULL};
	struct sp_rank_info i = detect(env);
	CHECK_INT(i.rank, 0);
	CHECK_INT(i.world_size, 1);
	CHECK_INT(i.local_rank, 0);
	CHECK_INT(i.runtime, SP_RANK_NONE);
	CHECK_STR(sp_rank_env__runtime_name(i.runtime), "none");
}

static void t_each_runtime(void)
{
	struct {
		const char *env[4];
		enum sp_rank_runtime rt;
		int rank, size, local;
	} cases[] = {
		{{"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=8", "OMPI_COMM_WORLD_LOCAL_RANK=1", NULL}, SP_RANK_OPENMPI, 3, 8, 1},
		{{"MV2_COMM_WORLD_RANK=5", "MV2_COMM_WORLD_SIZE=6", "MV2_COMM_WORLD_LOCAL_RANK=2", NULL}, SP_RANK_MVAPICH, 5, 6, 2},
		{{"PMI_RANK=7", "PMI_SIZE=16", "MPI_LOCALRANKID=3", NULL}, SP_RANK_PMI, 7, 16, 3},
		{{"PMIX_RANK=9", "PMIX_LOCAL_RANK=0", NULL}, SP_RANK_PMIX, 9, -1, 0},
		{{"PALS_RANKID=11", "PALS_LOCAL_RANKID=4", NULL}, SP_RANK_PALS, 11, -1, 4},
		{{"FLUX_TASK_RANK=2", "FLUX_JOB_SIZE=4", "FLUX_TASK_LOCAL_ID=0", NULL}, SP_RANK_FLUX, 2, 4, 0},
		{{"SLURM_PROCID=12", "SLURM_NTASKS=32", "SLURM_LOCALID=5", NULL}, SP_RANK_SLURM, 12, 32, 5},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct sp_rank_info i = detect(cases[k].env);
		CHECK_INT(i.runtime, cases[k].rt);
		CHECK_INT(i.rank, cases[k].rank);
		CHECK_INT(i.world_size, cases[k].size);
		CHECK_INT(i.local_rank, cases[k].local);
	}
}

static void t_order(void)
{
	/* mpirun under Slurm sets both: the MPI runtime's own variables win,
	 * in REFERENCE.md's order. */
	const char *env[] = {"SLURM_PROCID=0", "SLURM_NTASKS=1", "PMI_RANK=4",
			     "OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=4", NULL};
	struct sp_rank_info i = detect(env);
	CHECK_INT(i.runtime, SP_RANK_OPENMPI);
	CHECK_INT(i.rank, 2);
	CHECK_INT(i.world_size, 4);
	CHECK_INT(i.local_rank, -1);
	const char *env2[] = {"SLURM_PROCID=1", "FLUX_TASK_RANK=3", "PALS_RANKID=6", NULL};
	CHECK_INT(detect(env2).runtime, SP_RANK_PALS);
	const char *env3[] = {"SLURM_PROCID=1", "FLUX_TASK_RANK=3", NULL};
	CHECK_INT(detect(env3).rank, 3);
}

static void t_malformed(void)
{
	const char *env[] = {"OMPI_COMM_WORLD_RANK=", "MV2_COMM_WORLD_RANK=x1",
			     "PMI_RANK=-3", "PMIX_RANK=99999999999", "PALS_RANKID=4 ",
			     NULL};
	struct sp_rank_info i = detect(env);
	CHECK_INT(i.runtime, SP_RANK_PALS); /* trailing blank tolerated */
	CHECK_INT(i.rank, 4);
	const char *env2[] = {"SLURM_PROCID=2", "SLURM_NTASKS=zero", NULL};
	i = detect(env2);
	CHECK_INT(i.rank, 2);
	CHECK_INT(i.world_size, -1);
	struct sp_rank_info j;
	CHECK_INT(sp_rank_env__detect(NULL, NULL, &j), SP_RANK_NONE);
}

static void t_complete(void)
{
	/* srun --mpi=pmix: PMIx says the rank only, Slurm the rest */
	const char *env[] = {"PMIX_RANK=3", "SLURM_PROCID=3", "SLURM_NTASKS=4",
			     "SLURM_STEP_NUM_TASKS=4", "SLURM_LOCALID=1", NULL};
	struct sp_rank_info i = detect(env);
	CHECK_INT(i.runtime, SP_RANK_PMIX);
	CHECK_INT(i.rank, 3);
	CHECK_INT(i.world_size, 4);
	CHECK_INT(i.local_rank, 1);
	/* inside an allocation SLURM_NTASKS is the job's; the step's wins */
	const char *env2[] = {"PMIX_RANK=1", "SLURM_PROCID=1", "SLURM_NTASKS=8",
			      "SLURM_STEP_NUM_TASKS=2", NULL};
	CHECK_INT(detect(env2).world_size, 2);
	/* Slurm names another rank (the daemon srun started for mpirun): not ours */
	const char *env3[] = {"PMIX_RANK=3", "SLURM_PROCID=0", "SLURM_NTASKS=2",
			      "SLURM_LOCALID=0", NULL};
	i = detect(env3);
	CHECK_INT(i.world_size, -1);
	CHECK_INT(i.local_rank, -1);
	/* a size that cannot hold the rank is not the world's */
	const char *env4[] = {"PMIX_RANK=5", "SLURM_PROCID=5", "SLURM_NTASKS=2", NULL};
	CHECK_INT(detect(env4).world_size, -1);
}

static const struct test_case cases[] = {
	{"complete", "size and local rank from another runtime naming the same rank", t_complete},
	{"none", "no launcher variables: rank 0 of 1", t_none},
	{"each_runtime", "rank, size, local rank of every runtime", t_each_runtime},
	{"order", "REFERENCE.md order when several runtimes are set", t_order},
	{"malformed", "malformed values are skipped as unset", t_malformed},
};
TEST_MAIN(cases)
