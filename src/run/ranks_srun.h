/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun's MPI plugin against the application's MPI (docs/mpi.md "srun's MPI
 * plugin"), decided before the launch from what nunatak can see: the plugin
 * (`--mpi=X` / `--mpi X` on srun's command line, else SLURM_MPI_TYPE, else
 * the cluster's MpiDefault from `scontrol show config`) and the MPI family
 * the application links (mpi/abi.h).
 *
 *  - An Open MPI program under a plugin other than PMIx: Open MPI reaches
 *    Slurm's process manager through PMIx only, unless it was built with a
 *    PMI-1/PMI-2 client (the mca_pmix_s1/s2 components beside its
 *    libmpi), so its MPI_Init fails, bare too. nunatak says so with the
 *    remedy (srun --mpi=pmix), injects nothing (no MPI call can be measured)
 *    and runs no ping-pong; the application still runs and its exit status
 *    is kept.
 *  - An MPICH program under PMIx or no plugin: each rank starts a world of
 *    its own (ingest/mpi.h `mpi-separate-worlds` says so after the run); a
 *    warning before the launch names srun --mpi=pmi2.
 */
#ifndef NUNATAK_RUN_RANKS_SRUN_H
#define NUNATAK_RUN_RANKS_SRUN_H

#include <stdbool.h>
#include <stddef.h>

struct run_state;
struct mpi_abi;

/* The plugin named on srun's command line (argv, NULL-terminated, the
 * launcher prefix), into out; false when none is. Exposed for tests. */
bool srun_mpi_arg(const char *const *argv, char *out, size_t cap);

/*
 * For a launch by srun: warns or degrades as above. Returns true when the
 * application's MPI_Init cannot succeed under this plugin (nothing to inject:
 * the degradations with the remedy are added), false otherwise (also when
 * the launcher is not srun or the plugin is unknown).
 */
bool srun_mpi_mismatch(struct run_state *s, const struct mpi_abi *abi);

#endif
