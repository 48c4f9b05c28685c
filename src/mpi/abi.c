// SPDX-License-Identifier: BSD-3-Clause
#include "mpi/abi.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* 2: the C library of an MPI; 1: a binding of it; 0: not MPI. */
static int mpi_rank_of(const char *name, size_t n)
{
	static const char *const c_libs[] = {"libmpi.so.", "libmpich.so.", "libmpi_cray.so.",
					     "libmpi_ibm.so."};
	static const char *const bindings[] = {"libmpi_", "libmpich", "libmpifort.so.",
					       "libmpicxx.so."};
	for (size_t i = 0; i < sizeof(c_libs) / sizeof(c_libs[0]); i++)
		if (n > strlen(c_libs[i]) && strncmp(name, c_libs[i], strlen(c_libs[i])) == 0)
			return 2;
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (n > strlen(bindings[i]) && strncmp(name, bindings[i], strlen(bindings[i])) == 0 &&
		    memmem(name, n, ".so", 3))
			return 1;
	return 0;
}

static enum mpi_family family_of(const char *soname)
{
	if (strncmp(soname, "libmpich", 8) == 0 || strcmp(soname, "libmpi.so.12") == 0)
		return MPI_FAMILY_MPICH;
	if (strcmp(soname, "libmpi.so.40") == 0 || strcmp(soname, "libmpi.so.20") == 0)
		return MPI_FAMILY_OPENMPI;
	return MPI_FAMILY_UNKNOWN;
}

/* One ldd line: "\tNAME => PATH (0x...)", "\tNAME => not found", "\tPATH (0x...)". */
static void parse_line(const char *l, size_t len, struct mpi_abi *best, int *best_rank)
{
	while (len && (*l == ' ' || *l == '\t'))
		l++, len--;
	size_t n = 0;
	while (n < len && l[n] != ' ' && l[n] != '\t')
		n++;
	const char *base = l;
	for (size_t i = 0; i < n; i++)
		if (l[i] == '/')
			base = l + i + 1;
	size_t bn = n - (size_t)(base - l);
	int r = mpi_rank_of(base, bn);
	if (r <= *best_rank)
		return;
	*best_rank = r;
	*best = (struct mpi_abi){0};
	snprintf(best->soname, sizeof(best->soname), "%.*s", (int)bn, base);
	const char *arrow = memmem(l, len, "=> ", 3);
	const char *p = arrow ? arrow + 3 : l;
	size_t pn = arrow ? len - (size_t)(p - l) : n;
	size_t k = 0;
	while (k < pn && p[k] != ' ' && p[k] != '\t' && p[k] != '(')
		k++;
	if (k > 0 && p[0] == '/')
		snprintf(best->path, sizeof(best->path), "%.*s", (int)k, p);
	best->family = family_of(best->soname);
}

enum mpi_abi_status mpi_abi_from_ldd(const char *text, struct mpi_abi *out)
{
	*out = (struct mpi_abi){0};
	if (!text || strstr(text, "not a dynamic executable") || strstr(text, "statically linked"))
		return MPI_ABI_NOT_DYNAMIC;
	int best = 0;
	bool any = false;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (len && (l[0] == '\t' || l[0] == ' '))
			any = true;
		parse_line(l, len, out, &best);
		if (!nl)
			break;
		l = nl + 1;
	}
	if (best > 0) {
		out->f08 = strstr(text, "libmpi_usempif08.so") != NULL;
		return MPI_ABI_FOUND;
	}
	return any ? MPI_ABI_NONE : MPI_ABI_NOT_DYNAMIC;
}

const char *mpi_family_name(enum mpi_family f)
{
	return f == MPI_FAMILY_OPENMPI ? "Open MPI" : f == MPI_FAMILY_MPICH ? "MPICH" : "unknown";
}

const char *mpi_family_mpicc(enum mpi_family f)
{
	return f == MPI_FAMILY_OPENMPI ? "mpicc.openmpi" : f == MPI_FAMILY_MPICH ? "mpicc.mpich" : NULL;
}

enum mpi_family mpi_family_of_impl(const char *impl)
{
	if (impl && strcmp(impl, "Open MPI") == 0)
		return MPI_FAMILY_OPENMPI;
	if (impl && strcmp(impl, "MPICH") == 0)
		return MPI_FAMILY_MPICH;
	return MPI_FAMILY_UNKNOWN;
}
