/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage "collect" for an MPI launch (docs/pipeline.md HOOK(mpi)): rewrites
 * `<prefix> <app...>` into `<prefix> /abs/nunatak rank-shim --directory
 * <collect_dir> [opts] -- <app...>` and runs it once through s->x. The
 * launcher runs without perf; the ranks collect themselves (collect/
 * rank_shim.h) and write <collect_dir>/rank-<N>/. When the split found no
 * application, the command runs bare with the degradation
 * `rank-collection-unavailable` (never a refusal).
 */
#ifndef NUNATAK_RUN_RANKS_H
#define NUNATAK_RUN_RANKS_H

struct run_state;
struct err;

/* The MPI ranks collector of this Run (collect/collector.h), after the MPI
 * measurement's preparation (run/ranks_mpi.h). NULL with e filled when
 * nunatak itself failed (out of memory). */
struct collector;
struct collector *collector_for_ranks(struct run_state *s, struct err *e);

#endif
