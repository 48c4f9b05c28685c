// SPDX-License-Identifier: BSD-3-Clause
/* What a launch's network Ceilings depend on (mpi/netcache_scope.h) over
 * arbitrary input: the first line is a Slurm host list (expanded, and set as
 * SLURM_JOB_NODELIST and SLURM_NODELIST), optionally followed by tab-
 * separated SLURM_TASKS_PER_NODE, SLURM_JOB_CPUS_PER_NODE and
 * SLURM_JOB_NUM_NODES; the rest a command line split at spaces and launch-
 * split. A host list expands to sorted names once each, or to nothing; the
 * scope has its nodes or says why not, never both. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "launch/split.h"
#include "mpi/netcache_scope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ","-joined names: none empty, strictly increasing. */
static void check_set(const char *set)
{
	const char *prev = NULL;
	size_t prev_len = 0;
	for (const char *p = set;;) {
		size_t n = strcspn(p, ",");
		if (n == 0)
			abort();
		if (prev) {
			int c = strncmp(prev, p, prev_len < n ? prev_len : n);
			if (c > 0 || (c == 0 && prev_len >= n))
				abort();
		}
		prev = p;
		prev_len = n;
		if (!p[n])
			break;
		p += n + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *buf = xmalloc(size + 1), *argv[257], *envp[8];
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = memchr(buf, '\n', size), *cmd = nl ? nl + 1 : buf + size;
	if (nl)
		*nl = '\0';
	/* host list \t tasks per node \t CPUs per node \t node count */
	char *field[4] = {buf, NULL, NULL, NULL};
	for (int i = 1; i < 4 && field[i - 1]; i++) {
		field[i] = strchr(field[i - 1], '\t');
		if (field[i])
			*field[i]++ = '\0';
	}
	char *set = netcache_hostlist(buf);
	if (set)
		check_set(set);
	xfree(set);
	char *alloc = xasprintf("SLURM_JOB_NODELIST=%s", buf);
	char *step = xasprintf("SLURM_NODELIST=%s", buf);
	char *tasks = xasprintf("SLURM_TASKS_PER_NODE=%s", field[1] ? field[1] : "1");
	char *cpus = xasprintf("SLURM_JOB_CPUS_PER_NODE=%s", field[2] ? field[2] : "1");
	char *count = xasprintf("SLURM_JOB_NUM_NODES=%s", field[3] ? field[3] : "1");
	envp[0] = alloc;
	envp[1] = (char *)"OMPI_MCA_btl=self";
	envp[2] = step;
	envp[3] = field[1] ? tasks : NULL;
	envp[4] = field[1] ? cpus : NULL;
	envp[5] = field[1] ? count : NULL;
	envp[6] = NULL;
	size_t n = 0;
	for (char *p = cmd, *end = buf + size; p < end && n < 256;) {
		while (p < end && (*p == ' ' || *p == '\0' || *p == '\n'))
			p++;
		if (p >= end)
			break;
		argv[n++] = p;
		while (p < end && *p != ' ' && *p != '\0' && *p != '\n')
			p++;
		*p++ = '\0';
	}
	argv[n] = NULL;
	struct launch_plan plan;
	if (n && alloc && step && tasks && cpus && count && launch_split_with(argv, NULL, NULL, &plan, NULL) == 0 && plan.mpi) {
		char *prefix[257];
		memcpy(prefix, plan.prefix, plan.nr_prefix * sizeof(*prefix));
		prefix[plan.nr_prefix] = NULL;
		const char *impl[] = {"Open MPI", "MPICH", "unknown"};
		for (int i = 0; i < 3; i++) {
			struct netcache_scope sc;
			if (netcache_scope_of(prefix, impl[i], envp, "here", &sc) != 0)
				continue;
			if (!sc.transport || !sc.shape || (sc.nodes != NULL) == (sc.why_unknown[0] != 0))
				abort();
			if (sc.nodes)
				check_set(sc.nodes);
			netcache_scope__release(&sc);
		}
	}
	xfree(alloc);
	xfree(step);
	xfree(tasks);
	xfree(cpus);
	xfree(count);
	xfree(buf);
	return 0;
}
