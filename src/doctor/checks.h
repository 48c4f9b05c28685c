/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The individual checks of src/doctor/ (internal). Each appends one check
 * (and maybe a degradation) to r and returns 0, or -ENOMEM / a negative
 * executor error with e filled. A tool that is absent is a result, not an
 * error.
 */
#ifndef NUNATAK_DOCTOR_CHECKS_H
#define NUNATAK_DOCTOR_CHECKS_H

#include <stdbool.h>

struct caps;
struct config;
struct doctor_report;
struct executor;
struct err;
struct exec_result;

/* Captures both streams of argv (30 s timeout). */
int doctor_probe(struct executor *x, const char *const *argv, struct exec_result *res,
		 struct err *e);
/* The first non-empty line of s (caller frees), or NULL. */
char *doctor_first_line(const char *s);

/* cpu-collector: the capability probe (tools/caps.h: `<perf> --version` and
 * the permission), kept in *caps for the following checks (caller releases
 * it with caps__release(), also on failure). */
int doctor_check_perf(struct executor *x, const struct config *cfg, struct doctor_report *r,
		      struct caps *caps, struct err *e);
/* perf-permissions: perf_event_paranoid (or meta.json's sampling_blocked under replay). */
int doctor_check_permissions(const struct caps *caps, struct doctor_report *r);
/* offcpu: which off-CPU mechanism this machine gets (doctor/offcpu.h). */
int doctor_check_offcpu(const struct caps *caps, struct doctor_report *r);
/* hardware-counters: `perf stat -x, -e cycles -- true`. */
int doctor_check_counters(struct executor *x, const struct config *cfg, bool perf_ok,
			  struct doctor_report *r, struct err *e);
/* llvm: attrib_locate() and the support window. */
int doctor_check_llvm(struct executor *x, const struct config *cfg, struct doctor_report *r,
		      struct err *e);
/* addr2line, compiler, mpi-launcher: `--version` of each. */
int doctor_check_tools(struct executor *x, const struct config *cfg, struct doctor_report *r,
		       struct err *e);
/* hdf5 (the HDF5 module, loaded), preload-sampler and openmp-tool (library files), debuginfod (environment). */
int doctor_check_local(const struct config *cfg, struct doctor_report *r);

#endif
