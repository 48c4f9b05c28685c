// SPDX-License-Identifier: BSD-3-Clause
#include "mpi/stack.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/sha256.h"

static void copy_token(char *dst, size_t cap, const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strcspn(s, " \t\r\n");
	snprintf(dst, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

void mpi_stack_parse_version(const char *text, struct mpi_stack *st)
{
	snprintf(st->impl, sizeof(st->impl), "unknown");
	st->version[0] = '\0';
	if (!text)
		return;
	/* Open MPI 5 says "(Open MPI)"; 4.x's mpirun is OpenRTE's */
	const char *tag = strstr(text, "(Open MPI)") ? "(Open MPI)" : "(OpenRTE)";
	const char *p = strstr(text, tag);
	if (p) {
		snprintf(st->impl, sizeof(st->impl), "Open MPI");
		copy_token(st->version, sizeof(st->version), p + strlen(tag));
		return;
	}
	if (strstr(text, "HYDRA") || strstr(text, "MPICH")) {
		snprintf(st->impl, sizeof(st->impl), "MPICH");
		p = strstr(text, "Version:");
		if (p)
			copy_token(st->version, sizeof(st->version), p + strlen("Version:"));
	}
}

void mpi_stack_key(struct mpi_stack *st, const char *mpicc)
{
	char *s = xasprintf("%s|%s|%s", st->impl, st->version, mpicc ? mpicc : "");
	char hex[SHA256_HEX_SIZE];
	if (!s) {
		snprintf(st->key, sizeof(st->key), "unknown");
		return;
	}
	sha256_hex(s, strlen(s), hex);
	snprintf(st->key, sizeof(st->key), "%.16s", hex);
	xfree(s);
}

char *mpi_stack_mpicc(const char *launcher, const char *configured)
{
	if (configured && *configured && strcmp(configured, "mpicc") != 0)
		return xstrdup(configured);
	if (!launcher)
		return xstrdup("mpicc");
	const char *base = strrchr(launcher, '/');
	size_t dir_len = base ? (size_t)(base - launcher) + 1 : 0;
	base = base ? base + 1 : launcher;
	/* Debian's alternatives: mpirun.mpich, mpiexec.openmpi, mpiexec.hydra */
	const char *dot = strchr(base, '.');
	const char *suffix = dot && strcmp(dot, ".hydra") != 0 ? dot : "";
	return xasprintf("%.*smpicc%s", (int)dir_len, launcher, suffix);
}
