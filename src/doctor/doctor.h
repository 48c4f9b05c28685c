/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Doctor: what this machine can measure, and what it costs when it cannot.
 * Each check yields {name, status ok|warning|missing, detail, remedy}; a
 * capability loss also yields a named degradation (the same name, message and
 * remedy `nunatak run` announces, so the two deduplicate on (name, message)).
 *
 * Every external program is asked through the executor (replayable); files
 * (/proc/sys/kernel/perf_event_paranoid, the target's ELF headers) are read
 * directly. Nothing here prints: cli/cmd_doctor.c renders the report.
 *
 * Check names (REFERENCE.md §1 "doctor"): cpu-collector, perf-permissions,
 * hardware-counters, llvm, addr2line, compiler, mpi-launcher, hdf5,
 * preload-sampler, debuginfod, and with a command target-binary and
 * target-attribution.
 */
#ifndef NUNATAK_DOCTOR_DOCTOR_H
#define NUNATAK_DOCTOR_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h" /* struct degradations */

struct attrib_tools;
struct config;
struct executor;
struct err;
typedef struct json_t json_t;

enum doctor_status { DOCTOR_OK = 0, DOCTOR_WARNING, DOCTOR_MISSING };

struct doctor_check {
	char *name;
	enum doctor_status status;
	char *detail;
	char *remedy; /* NULL when nothing to do */
};

struct doctor_report {
	struct doctor_check *v;
	size_t n, cap;
	struct degradations degradations;
};

const char *doctor_status__name(enum doctor_status s); /* "ok", "warning", "missing" */

/*
 * The full doctor (`nunatak doctor`): every check above, in that order.
 * app_argv (NULL-terminated, may be NULL) is the command whose target binary
 * is inspected, launchers (mpirun, srun, env ...) seen through.
 * Returns 0, or -ENOMEM with e filled; a missing tool is a check result,
 * never an error. Release *out with doctor_report__release() either way.
 */
int doctor_full(struct executor *x, const struct config *cfg, const char *const *app_argv,
		struct doctor_report *out, struct err *e);

/*
 * The light doctor `nunatak run` calls before launch (run/stage_setup.c
 * stage_doctor), after it probed perf itself (stage_detect_perf: a second
 * `perf --version` would shift a replay's FIFO queues). Locates the
 * symbolizer into *tools (kept for attribution; release with
 * attrib_tools__release()) and adds to *out its degradation (llvm-missing
 * ...) and, unless replay (the recorded binary is not on this machine),
 * target-binary and target-attribution. Its executor calls are exactly
 * attrib_locate()'s `--version` probes. Returns 0, or < 0 with e filled.
 */
int doctor_light(struct executor *x, const struct config *cfg, const char *const *app_argv,
		 bool replay, struct attrib_tools *tools, struct degradations *out, struct err *e);

/* target-binary and target-attribution only (no executor call). */
int doctor_check_target(const char *const *app_argv, struct doctor_report *r);

/* The preload sampler library (libscope_profiler.so) beside this nunatak
 * (build tree or installed prefix), or NULL; caller frees. */
char *doctor_preload_library(void);
/* lib/libnunatak_ompt.so, nunatak's OMPT tool, beside nunatak (owned), or NULL. */
char *doctor_ompt_library(void);

/* "<why_not_perf>: libscope_profiler samples the application through
 * LD_PRELOAD instead (...)" into msg[cap]. */
void doctor_preload_message(const char *why_not_perf, int hz, char *msg, unsigned cap);

/* The `collector` check: which CPU collector `nunatak run` will use and why,
 * from the cpu-collector and perf-permissions checks already in r. Where
 * the preload sampler stands in, its degradation replaces
 * cpu-collection-unavailable (as the run announces it). replay: the
 * recording decides, no stand-in. */
int doctor_check_collector(const struct config *cfg, bool replay, struct doctor_report *r);

/* {"checks":[{name,status,detail,remedy}],"degradations":[{name,message,remedy}]};
 * new reference or NULL (out of memory). */
json_t *doctor_report__json(const struct doctor_report *r);

void doctor_report__release(struct doctor_report *r);

/* Internal to src/doctor/: appends a check (strings copied) and, when
 * degradation_message is non-NULL, a degradation named degradation_name
 * with the same remedy. Returns 0 or -ENOMEM. */
int doctor_report__add(struct doctor_report *r, const char *name, enum doctor_status status,
		       const char *detail, const char *remedy, const char *degradation_name,
		       const char *degradation_message);

#endif
