/* SPDX-License-Identifier: BSD-3-Clause */
#include "rank_env.h"

#include <stddef.h>

struct runtime_vars {
	enum sp_rank_runtime rt;
	const char *name;
	const char *rank, *size, *local;
};

static const struct runtime_vars runtimes[] = {
	{SP_RANK_OPENMPI, "openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	 "OMPI_COMM_WORLD_LOCAL_RANK"},
	{SP_RANK_MVAPICH, "mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE",
	 "MV2_COMM_WORLD_LOCAL_RANK"},
	{SP_RANK_PMI, "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
	{SP_RANK_PMIX, "pmix", "PMIX_RANK", NULL, "PMIX_LOCAL_RANK"},
	{SP_RANK_PALS, "pals", "PALS_RANKID", NULL, "PALS_LOCAL_RANKID"},
	{SP_RANK_FLUX, "flux", "FLUX_TASK_RANK", "FLUX_JOB_SIZE", "FLUX_TASK_LOCAL_ID"},
	{SP_RANK_SLURM, "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

/* Parses a non-negative decimal int with optional surrounding blanks;
 * -1 if absent or malformed. No strtol: it would depend on the locale. */
static int parse_nonneg(const char *s)
{
	if (!s)
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > 0x7fffffffL)
			return -1;
	}
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return *s ? -1 : (int)v;
}

static int lookup(sp_getenv_fn fn, void *ctx, const char *name)
{
	return name ? parse_nonneg(fn(name, ctx)) : -1;
}

/* The chosen runtime left the size or the local rank unsaid (PMIx under
 * srun publishes PMIX_RANK alone): another runtime that names the same rank
 * says them (Slurm: SLURM_STEP_NUM_TASKS, else SLURM_NTASKS, and
 * SLURM_LOCALID). A runtime naming another rank is another layer (the
 * daemon srun started for mpirun) and says nothing about this one. */
static void complete(sp_getenv_fn fn, void *ctx, struct sp_rank_info *out)
{
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		const struct runtime_vars *r = &runtimes[i];
		if (out->world_size >= 1 && out->local_rank >= 0)
			return;
		if (r->rt == out->runtime || lookup(fn, ctx, r->rank) != out->rank)
			continue;
		int size = r->rt == SP_RANK_SLURM ? lookup(fn, ctx, "SLURM_STEP_NUM_TASKS") : -1;
		if (size < 1)
			size = lookup(fn, ctx, r->size);
		if (out->world_size < 1 && size >= 1 && out->rank < size)
			out->world_size = size;
		if (out->local_rank < 0)
			out->local_rank = lookup(fn, ctx, r->local);
	}
}

enum sp_rank_runtime sp_rank_env__detect(sp_getenv_fn getenv_fn, void *ctx,
					 struct sp_rank_info *out)
{
	out->rank = 0;
	out->world_size = 1;
	out->local_rank = 0;
	out->runtime = SP_RANK_NONE;
	if (!getenv_fn)
		return SP_RANK_NONE;
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		const struct runtime_vars *r = &runtimes[i];
		int rank = lookup(getenv_fn, ctx, r->rank);
		if (rank < 0)
			continue;
		int size = lookup(getenv_fn, ctx, r->size);
		out->rank = rank;
		out->world_size = size >= 1 ? size : -1;
		out->local_rank = lookup(getenv_fn, ctx, r->local);
		out->runtime = r->rt;
		complete(getenv_fn, ctx, out);
		return r->rt;
	}
	return SP_RANK_NONE;
}

const char *sp_rank_env__runtime_name(enum sp_rank_runtime rt)
{
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (runtimes[i].rt == rt)
			return runtimes[i].name;
	return "none";
}
