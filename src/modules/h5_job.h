/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One call of the HDF5 module, run in a child process (exec_isolate): an
 * .h5 is read by libhdf5, which is not ours and crashes or loops on some
 * corrupt files (issue 28). The child opens the module, makes the call on
 * its copy of nunatak's memory and streams the result back over a pipe
 * (the regions it interned, then the call's own result, then its status);
 * the parent rebuilds it. A crash, a hang past the time bound or a memory
 * bound of the child becomes an error naming the file; nothing of the
 * parent's is touched. Bounds: NUNATAK_H5_TIME_LIMIT (CPU seconds, default
 * 60 + 1 per 8 MiB of the file; wall time 3x that + 30 s), memory 2 GiB or
 * 16x the file, whichever is larger.
 */
#ifndef NUNATAK_MODULES_H5_JOB_H
#define NUNATAK_MODULES_H5_JOB_H

#include <stddef.h>
#include <stdint.h>

struct console;
struct err;
struct rank_data;
struct region_counters;
struct trace_set;

enum h5_job_kind { H5_JOB_RANKS, H5_JOB_LOAD, H5_JOB_COUNTERS, H5_JOB_CONVERT, H5_JOB_MERGE };

struct h5_job {
	enum h5_job_kind kind;
	const char *path; /* the file read (written, for convert/merge): messages */
	int32_t rank;
	struct trace_set *ts;
	struct rank_data *rd;       /* LOAD: filled */
	struct region_counters *rc; /* COUNTERS: rows added */
	const char *out;
	struct console *con;
	struct trace_set *runs;
	size_t nr_runs;
	const char *const *names;
	int32_t *ranks; /* RANKS: the result, caller frees */
	size_t nr_ranks;
};

/* Runs the job in a child (regions/h5_job.c). 0 or negative, e filled. */
int h5_job_run(struct h5_job *j, struct err *e);
/* The call itself, in the child (modules/trace_h5.c: module loaded there). */
int h5_module_call(struct h5_job *j, struct err *e);

#endif
