/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rank identity from the environment an MPI launcher sets, without linking
 * MPI. Pure: the caller passes a getenv-like lookup, there is no global
 * state and no dependency beyond libc, so nunatak_core compiles this same
 * file for its rank shim.
 *
 * Order (REFERENCE.md §3 "Rank identity", PMIx added after PMI):
 *   Open MPI  OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK
 *   MVAPICH   MV2_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK
 *   MPICH/PMI PMI_RANK / PMI_SIZE / MPI_LOCALRANKID
 *   PMIx      PMIX_RANK / (none) / PMIX_LOCAL_RANK
 *   PALS      PALS_RANKID / (none) / PALS_LOCAL_RANKID
 *   Flux      FLUX_TASK_RANK / FLUX_JOB_SIZE / FLUX_TASK_LOCAL_ID
 *   Slurm     SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID
 * A runtime is chosen by its rank variable alone; size and local rank come
 * from the same runtime, else from another runtime that names the same rank
 * (srun --mpi=pmix publishes PMIX_RANK and Slurm's SLURM_NTASKS beside it),
 * and are -1 when none says.
 */
#ifndef SP_RANK_ENV_H
#define SP_RANK_ENV_H

enum sp_rank_runtime {
	SP_RANK_NONE = 0, /* no MPI: rank 0 of 1 */
	SP_RANK_OPENMPI,
	SP_RANK_MVAPICH,
	SP_RANK_PMI,
	SP_RANK_PMIX,
	SP_RANK_PALS,
	SP_RANK_FLUX,
	SP_RANK_SLURM,
};

struct sp_rank_info {
	int rank;       /* >= 0 */
	int world_size; /* >= 1, or -1 if unknown */
	int local_rank; /* >= 0, or -1 if unknown */
	enum sp_rank_runtime runtime;
};

/* Returns the value of an environment variable or NULL, like getenv(3). */
typedef const char *(*sp_getenv_fn)(const char *name, void *ctx);

/*
 * Fills *out from the first runtime whose rank variable holds a valid
 * non-negative integer; with none, rank 0, size 1, local rank 0 and
 * SP_RANK_NONE. Malformed values ("", "x", "-3", overflow) are skipped as
 * if unset. Returns out->runtime.
 */
enum sp_rank_runtime sp_rank_env__detect(sp_getenv_fn getenv_fn, void *ctx,
					 struct sp_rank_info *out);

/* Short lowercase name of a runtime ("openmpi", ..., "none"). */
const char *sp_rank_env__runtime_name(enum sp_rank_runtime rt);

#endif
