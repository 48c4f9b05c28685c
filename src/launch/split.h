/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launch split: `mpirun -n 8 --map-by core ./solver -i in` becomes the
 * prefix `mpirun -n 8 --map-by core` (runs once, here) and the application
 * `./solver -i in` (runs in every rank, wherever the scheduler put it). This
 * is the only module that knows launchers (REFERENCE.md §1 "Launcher
 * parsing"): mpirun, mpiexec, mpiexec.hydra, orterun, prterun, srun, jsrun,
 * aprun, `flux run`, and the wrappers env, numactl, taskset, nice, stdbuf,
 * time before or after them.
 *
 * Each launcher has a table of the options that take a value (Open MPI,
 * MPICH hydra / Intel MPI, Slurm, jsrun, aprun, flux), so `-n 8`, `-x VAR`,
 * `--mca btl self` (two values) and `-genv K V` are skipped exactly. An option
 * missing from the tables is taken as a flag; when a resolver is given and
 * the token after it does not resolve to an executable while a later one
 * does, the token is taken as that option's value instead (and the plan says
 * so in `note`). What cannot be resolved is said (`problem`), never guessed.
 *
 * The split itself is pure: it partitions `cmd` (borrowed) and reads nothing
 * but the resolver's answers.
 */
#ifndef NUNATAK_LAUNCH_SPLIT_H
#define NUNATAK_LAUNCH_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

struct err;

enum launcher_kind {
	LAUNCHER_NONE = 0, /* no MPI launcher: a single process (maybe wrapped) */
	LAUNCHER_MPI,      /* mpirun / mpiexec: Open MPI or MPICH, unknown which */
	LAUNCHER_OPENMPI,  /* orterun, prterun */
	LAUNCHER_HYDRA,    /* mpiexec.hydra (MPICH, Intel MPI) */
	LAUNCHER_SLURM,    /* srun */
	LAUNCHER_JSRUN,    /* IBM LSF jsrun */
	LAUNCHER_APRUN,    /* Cray ALPS aprun */
	LAUNCHER_FLUX,     /* flux run / flux submit */
};

const char *launcher_kind__name(enum launcher_kind k);

struct launch_plan {
	char *const *prefix;  /* borrowed: cmd[0 .. nr_prefix) */
	size_t nr_prefix;
	char *const *app;     /* borrowed: cmd + nr_prefix, NULL-terminated like cmd */
	size_t nr_app;        /* 0: no application could be resolved (see problem) */
	bool mpi;             /* the prefix holds a launcher that fans out ranks */
	enum launcher_kind kind;   /* of the first MPI launcher */
	const char *launcher;      /* borrowed token of the first MPI launcher, or NULL */
	int world_size;            /* ranks announced by the launcher's options, -1 unknown */
	const char *target;        /* app[0], or NULL: the Run's name comes from it */
	char problem[224];         /* "" or why the application is unresolved/suspect */
	char note[224];            /* "" or a decision taken without a table entry */
};

/* Answers whether `token` resolves to an executable (PATH or a path). */
typedef bool (*launch_resolver)(const char *token, void *ctx);

/*
 * Splits the NULL-terminated `cmd` into *plan. `resolve` may be NULL (pure:
 * tables only). Returns 0 (even when the application is unresolved: then
 * nr_app is 0 or `problem` is set), or -EINVAL for an empty command, with e
 * filled. Never allocates.
 */
int launch_split_with(char *const *cmd, launch_resolver resolve, void *ctx,
		      struct launch_plan *plan, struct err *e);

/* launch_split_with() resolving through PATH and the filesystem (exec_which). */
int launch_split(char *const *cmd, struct launch_plan *plan, struct err *e);

/*
 * The launch with `shim` (NULL-terminated) interposed inside each rank:
 * `<prefix> <shim...> <app...>`. Returns a NULL-terminated array of borrowed
 * pointers (the array itself allocated: free with xfree), or NULL when out of
 * memory or when the plan has no application.
 */
char **launch_plan__wrap(const struct launch_plan *plan, const char *const *shim);

#endif
