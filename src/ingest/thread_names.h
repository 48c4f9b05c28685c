/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Thread names of one recording: tid -> comm as the kernel last reported it
 * (perf.data's COMM records, the one at exec included, which perf marks
 * PERF_RECORD_MISC_COMM_EXEC; or the comm `perf script` prints beside a
 * sample). The perf.data reader looks a sample's comm up here, and the
 * table outlives the read so the emit can name every thread Locus of the
 * recording (sampled, or only seen switching: ingest/switches.h), never
 * inventing a name where none was recorded.
 */
#ifndef NUNATAK_INGEST_THREAD_NAMES_H
#define NUNATAK_INGEST_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "common/hashtab.h"

struct pivot;

struct thread_names {
	struct strtab comms; /* comm strings */
	struct tidcomm { int64_t tid; uint64_t hash, time; uint32_t comm; } *tc;
	size_t nr_tc, cap_tc;
	struct oatab tct;
	/* COMM and FORK records as read, replayed in time order */
	struct tn_event { uint64_t time; size_t seq; int64_t tid, parent; int64_t comm; } *ev;
	size_t nr_ev, cap_ev;
};

void thread_names__init(struct thread_names *t);
void thread_names__release(struct thread_names *t);
/* tid's comm is comm[0..len) since `time` (ns; 0 when unknown): a call at
 * the same time or later renames it (exec, prctl), an earlier one does not
 * (perf.data's records are in time order only within a CPU's buffer: a
 * thread's two renames on two CPUs can be written in either order). 0 or
 * -ENOMEM. */
int thread_names__set(struct thread_names *t, int64_t tid, const char *comm, size_t len,
		      uint64_t time);
/* A recording's records, in the order they were read: tid renamed to comm
 * at `time` (a COMM record: exec, prctl), or child started by parent at
 * `time` (a FORK record: a new thread or process is named after the thread
 * that made it, as the kernel copies the comm, until it renames itself). No
 * name is known until thread_names__replay() applies them in time order.
 * 0 or -ENOMEM. */
int thread_names__comm_at(struct thread_names *t, int64_t tid, const char *comm, size_t len,
			  uint64_t time);
int thread_names__fork_at(struct thread_names *t, int64_t child, int64_t parent,
			  uint64_t time);
int thread_names__replay(struct thread_names *t);
/* tid's comm (not NUL-terminated, *len bytes), or NULL with *len 0. */
const char *thread_names__get(const struct thread_names *t, int64_t tid, size_t *len);
/* Names every thread Locus of p on (node, rank) whose tid has a comm here
 * (model.h locus__set_name); the others keep theirs (NULL: none). 0 or
 * -ENOMEM. */
int thread_names__name_loci(const struct thread_names *t, const char *node, int rank,
			    struct pivot *p);

#endif
