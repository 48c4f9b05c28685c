// SPDX-License-Identifier: BSD-3-Clause
#include "run/ranks_srun.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "exec/exec.h"
#include "mpi/abi.h"
#include "run/pipeline.h"

bool srun_mpi_arg(const char *const *argv, char *out, size_t cap)
{
	bool found = false;
	/* the last one counts, as srun's own option parsing does */
	for (size_t i = 1; argv && argv[i]; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--mpi=", 6) == 0) {
			snprintf(out, cap, "%s", argv[i] + 6);
			found = true;
		} else if (strcmp(argv[i], "--mpi") == 0 && argv[i + 1]) {
			snprintf(out, cap, "%s", argv[++i]);
			found = true;
		}
	}
	return found;
}

/* The cluster's MpiDefault (`scontrol show config`, through the execution
 * boundary), into out; false when it cannot be read. */
static bool mpi_default(struct run_state *s, char *out, size_t cap)
{
	const char *argv[] = {"scontrol", "show", "config", NULL};
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 30};
	struct exec_result r = {0};
	struct err e = {0};
	bool ok = false;
	if (executor__run(s->x, &rq, &r, &e) == 0 && r.exit_code == 0 && r.out) {
		const char *l = strstr(r.out, "\nMpiDefault");
		int n = 0;
		if (l && sscanf(l, " MpiDefault = %63s%n", out, &n) == 1 && n > 0 && cap > 63)
			ok = true;
	}
	exec_result__release(&r);
	return ok;
}

/* srun's plugin for this launch and where it was read, or false. */
static bool plugin_of(struct run_state *s, char *type, size_t cap, const char **from)
{
	if (srun_mpi_arg((const char *const *)s->launch.prefix, type, cap)) {
		*from = "on srun's command line";
		return true;
	}
	const char *env = getenv("SLURM_MPI_TYPE");
	if (env && *env) {
		snprintf(type, cap, "%s", env);
		*from = "from SLURM_MPI_TYPE";
		return true;
	}
	*from = "the cluster's MpiDefault";
	return mpi_default(s, type, cap);
}

/* Open MPI built with a PMI-1/PMI-2 client has mca_pmix_s1/s2 among its
 * components (Debian: <libdir>/openmpi3/, upstream: <libdir>/openmpi/). */
static bool ompi_has_pmi(const char *libmpi)
{
	char real[PATH_MAX];
	if (!libmpi[0] || !realpath(libmpi, real))
		return false;
	char *slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';
	static const char *const dirs[] = {"openmpi3", "openmpi"};
	static const char *const comps[] = {"mca_pmix_s1.so", "mca_pmix_s2.so"};
	for (size_t d = 0; d < 2; d++)
		for (size_t c = 0; c < 2; c++) {
			char *p = xasprintf("%s/%s/%s", real, dirs[d], comps[c]);
			bool there = p && access(p, F_OK) == 0;
			xfree(p);
			if (there)
				return true;
		}
	return false;
}

static bool is_srun(const char *launcher)
{
	const char *base = launcher ? strrchr(launcher, '/') : NULL;
	base = base ? base + 1 : launcher;
	return base && strcmp(base, "srun") == 0;
}

bool srun_mpi_mismatch(struct run_state *s, const struct mpi_abi *abi)
{
	char type[64] = "", msg[1400], remedy[300];
	const char *from = "";
	if (!is_srun(s->launch.launcher) || abi->family == MPI_FAMILY_UNKNOWN ||
	    !plugin_of(s, type, sizeof(type), &from))
		return false;
	bool pmix = strncmp(type, "pmix", 4) == 0;
	if (abi->family == MPI_FAMILY_MPICH) {
		if (pmix || strcmp(type, "none") == 0)
			console__warn(s->con, "srun's MPI plugin is %s (%s) and the application links "
				      "MPICH (%s), which reaches Slurm through PMI-2: each rank will "
				      "start an MPI world of its own; launch it with srun --mpi=pmi2",
				      type, from, abi->soname);
		return false;
	}
	if (pmix || ompi_has_pmi(abi->path))
		return false;
	snprintf(msg, sizeof(msg), "nunatak injects nothing into the ranks: srun's MPI plugin is "
		 "%s (%s), but the application links Open MPI (%s), which reaches Slurm only "
		 "through PMIx (no PMI-1/PMI-2 client, mca_pmix_s1/s2, beside %s): its MPI_Init "
		 "fails under this plugin, with or without nunatak, so no MPI call can be "
		 "measured; the application's exit status is kept", type, from, abi->soname,
		 abi->path);
	snprintf(remedy, sizeof(remedy), "launch it with srun --mpi=pmix (or export "
		 "SLURM_MPI_TYPE=pmix); `srun --mpi=list` names the plugins this Slurm has");
	console__warn(s->con, "the application links Open MPI and srun's MPI plugin is %s (%s): "
		      "Open MPI needs --mpi=pmix under Slurm; its MPI_Init will fail", type, from);
	run_state__degrade(s, DEG_MPI_ANALYSIS_UNAVAILABLE, msg, remedy);
	snprintf(msg, sizeof(msg), "no ping-pong: an Open MPI program cannot start under srun's "
		 "%s plugin (%s)", type, from);
	run_state__degrade(s, DEG_NETWORK_CEILINGS_UNAVAILABLE, msg, remedy);
	return true;
}
