// SPDX-License-Identifier: BSD-3-Clause
/* Checks answered without running anything: build features, files, environment,
 * and the target binary's ELF sections (read with attrib/elf, not a tool). */
#include "doctor/checks.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "attrib/elf.h"
#include "build_config.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "doctor/doctor.h"
#include "exec/exec.h"
#include "launch/launch.h"
#include "modules/trace_h5.h"

#define PRELOAD_NAME "libscope_profiler.so"
#define OMPT_NAME "libnunatak_ompt.so"

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* A library of ours beside nunatak: the build tree (nunatak beside lib/),
 * then an installed prefix, then the configured build tree; NULL if none. */
static char *library_beside(const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		static const char *const rel[] = {"lib", "../lib", "../lib64",
						  "../lib/x86_64-linux-gnu", "../lib/aarch64-linux-gnu"};
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			char *p = xasprintf("%s/%s/%s", exe, rel[i], name);
			if (p && readable(p))
				return p;
			xfree(p);
		}
	}
	char *p = xasprintf("%s/lib/%s", NUNATAK_BINARY_DIR, name);
	if (p && readable(p))
		return p;
	xfree(p);
	return NULL;
}

char *doctor_preload_library(void)
{
	return library_beside(PRELOAD_NAME);
}

char *doctor_ompt_library(void)
{
	return library_beside(OMPT_NAME);
}

static int check_ompt(struct doctor_report *r)
{
	char *lib = doctor_ompt_library();
	if (!lib)
		return doctor_report__add(r, "openmp-tool", DOCTOR_WARNING,
					  OMPT_NAME " not found beside nunatak: LLVM libomp's "
					  "parallel regions are read from the samples' frames, not "
					  "measured by OMPT",
					  "build nunatak with libomp-dev installed (omp-tools.h) and "
					  "install it completely", NULL, NULL);
	char *detail = xasprintf("%s (OMPT tool: LLVM libomp's regions, work and barrier wait "
				 "per thread, through OMP_TOOL_LIBRARIES)", lib);
	int rc = detail ? doctor_report__add(r, "openmp-tool", DOCTOR_OK, detail, NULL, NULL, NULL)
			: -ENOMEM;
	xfree(detail);
	xfree(lib);
	return rc;
}

static int check_preload(struct doctor_report *r)
{
	char *lib = doctor_preload_library();
	if (!lib)
		return doctor_report__add(r, "preload-sampler", DOCTOR_WARNING,
					  PRELOAD_NAME " not found beside nunatak: no fallback "
					  "sampler where perf is missing or blocked",
					  "install nunatak completely (cmake --install) so "
					  "lib/" PRELOAD_NAME " sits beside bin/nunatak", NULL, NULL);
	char *detail = xasprintf("%s (fallback sampler where perf is missing or blocked)", lib);
	int rc = detail ? doctor_report__add(r, "preload-sampler", DOCTOR_OK, detail, NULL, NULL,
					     NULL)
			: -ENOMEM;
	xfree(detail);
	xfree(lib);
	return rc;
}

static int check_debuginfod(const struct config *cfg, struct doctor_report *r)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char detail[300];
	if (cfg && !cfg->debuginfod_enabled)
		snprintf(detail, sizeof(detail), "disabled by configuration ([debuginfod] enabled = false)");
	else if (!urls || !*urls)
		snprintf(detail, sizeof(detail),
			 "DEBUGINFOD_URLS unset: only debug information on this machine is used");
	else
		snprintf(detail, sizeof(detail), "%.200s (timeout %g s, symbolization only)", urls,
			 cfg ? cfg->debuginfod_timeout_s : 10.0);
	return doctor_report__add(r, "debuginfod", DOCTOR_OK, detail, NULL, NULL, NULL);
}

/* HDF5 support is the module's (regions/trace_h5.h): loaded, or why not. */
static int check_hdf5(struct doctor_report *r)
{
	char detail[PATH_MAX + 64];
	struct err e = {0};
	if (trace_h5_support(detail, sizeof(detail), &e) == 0) {
		size_t n = strlen(detail);
		snprintf(detail + n, sizeof(detail) - n, ": region traces read and write .h5");
		return doctor_report__add(r, "hdf5", DOCTOR_OK, detail, NULL, NULL, NULL);
	}
	/* e.msg says why (the path tried, the loader's reason) and what to do. */
	return doctor_report__add(r, "hdf5", DOCTOR_WARNING, e.msg,
				  "reinstall nunatak, or rebuild it with libhdf5-dev installed; "
				  ".spt region traces work without it",
				  NULL, NULL);
}

int doctor_check_local(const struct config *cfg, struct doctor_report *r)
{
	int rc = check_hdf5(r);
	if (rc == 0)
		rc = check_preload(r);
	if (rc == 0)
		rc = check_ompt(r);
	if (rc == 0)
		rc = check_debuginfod(cfg, r);
	return rc;
}

/* The attribution ceiling the target's sections allow (REFERENCE.md §4). */
static int check_attribution(const struct elf_info *info, struct doctor_report *r)
{
	if (info->has_debug_info)
		return doctor_report__add(r, DEG_TARGET_ATTRIBUTION, DOCTOR_OK,
					  "debug information present: line-level attribution", NULL,
					  NULL, NULL);
	const char *msg = info->has_symtab ? "no debug information: attribution capped at "
					     "function level"
			  : info->has_dynsym ? "stripped binary: attribution capped at symbol level"
					     : "no symbol table at all: Hotspots will stay unresolved";
	return doctor_report__add(r, DEG_TARGET_ATTRIBUTION,
				  info->has_symtab || info->has_dynsym ? DOCTOR_WARNING : DOCTOR_MISSING,
				  msg, DEG_TARGET_ATTRIBUTION_REMEDY, DEG_TARGET_ATTRIBUTION, msg);
}

static const char *elf_kind(const struct elf_info *info)
{
	return info->type == ELF_TYPE_EXEC ? "executable"
	       : info->type == ELF_TYPE_DYN ? "position-independent executable or shared object"
					    : "object";
}

static int inspect(const char *target, const char *path, struct doctor_report *r)
{
	struct elf_info info;
	struct err e = {0};
	memset(&info, 0, sizeof(info));
	int rc = elf_info__read(&info, path, 0, &e);
	char *detail = NULL, *msg = NULL;
	if (rc < 0) {
		msg = xasprintf("target `%s` is not an ELF binary (a script?): nothing to inspect "
				"before the run", target);
		rc = msg ? doctor_report__add(r, DEG_TARGET_BINARY, DOCTOR_WARNING, msg,
					      DEG_TARGET_BINARY_REMEDY, DEG_TARGET_BINARY, msg)
			 : -ENOMEM;
		goto out;
	}
	detail = xasprintf("%s: ELF %s %s", path, info.is64 ? "64-bit" : "32-bit", elf_kind(&info));
	rc = detail ? doctor_report__add(r, DEG_TARGET_BINARY, DOCTOR_OK, detail, NULL, NULL, NULL)
		    : -ENOMEM;
	if (rc == 0)
		rc = check_attribution(&info, r);
out:
	elf_info__release(&info);
	xfree(detail);
	xfree(msg);
	return rc;
}

/* A program whose exec changes privileges (setuid or setgid to another
 * owner, file capabilities) runs in the kernel's secure-execution mode: perf
 * loses it at the exec and LD_PRELOAD is ignored, so nothing would be
 * measured while a Run said nothing of it. Said before the run; `run` then
 * launches it unmeasured. */
static int check_privileged(const char *target, const char *path, struct doctor_report *r)
{
	struct stat st;
	struct statvfs fs;
	char why[160] = "";
	/* on a nosuid mount the bits change nothing */
	if (stat(path, &st) != 0 || (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID)))
		return 0;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		snprintf(why, sizeof(why), "setuid (owner uid %u)", (unsigned)st.st_uid);
	else if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())
		snprintf(why, sizeof(why), "setgid (group gid %u)", (unsigned)st.st_gid);
	else if (geteuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		snprintf(why, sizeof(why), "given file capabilities (getcap shows them)");
	if (!why[0])
		return 0;
	char *msg = xasprintf("target `%s` is %s: its exec changes privileges, and the kernel "
			      "keeps perf and LD_PRELOAD out of it: it runs unmeasured", target,
			      why);
	int rc = msg ? doctor_report__add(r, DEG_TARGET_PRIVILEGED, DOCTOR_WARNING, msg,
					  DEG_TARGET_PRIVILEGED_REMEDY, DEG_TARGET_PRIVILEGED, msg)
		     : -ENOMEM;
	xfree(msg);
	return rc;
}

int doctor_check_target(const char *const *app_argv, struct doctor_report *r)
{
	if (!app_argv || !app_argv[0])
		return 0;
	struct launch_plan plan;
	struct err e = {0};
	const char *target = app_argv[0];
	/* Launchers and wrappers are seen through: `mpirun -n 8 ./solver` inspects solver. */
	if (launch_split((char *const *)app_argv, &plan, &e) == 0 && plan.target)
		target = plan.target;
	char *path = NULL, *msg = NULL;
	int w = exec_which(target, &path), rc = 0;
	if (w == -ENOMEM)
		return -ENOMEM;
	if (w == 0)
		rc = inspect(target, path, r);
	if (w == 0 && rc == 0)
		rc = check_privileged(target, path, r);
	else if (!(msg = xasprintf("target `%s` %s", target,
				   w == -EACCES ? "is not executable" : "was not found")))
		rc = -ENOMEM;
	else
		rc = doctor_report__add(r, DEG_TARGET_BINARY, DOCTOR_MISSING, msg,
					w == -EACCES ? "chmod +x it, or run the right file"
						     : "check the path (a bare name is looked up "
						       "on PATH, ./name in the current directory)",
					DEG_TARGET_BINARY, msg);
	xfree(path);
	xfree(msg);
	return rc;
}
